#!/bin/sh
# SPDX-License-Identifier: MIT
# no-test-hooks.sh HPFILLD HOOKED: the binary that gets installed holds no test seam: no
# HPFILLD_TEST_* name (so no environment can reach a hook) and no symbol a test would put its
# fake in the place of (a hook, a rendezvous, a writable function pointer). The same checks find
# the hooks in HOOKED (tests/hpfilld-hooked), so they can tell.
set -eu
bin=$1 hooked=$2
command -v nm >/dev/null || { echo "SKIP: no nm (package binutils) to read the symbols"; exit 77; }
names() { grep -a -o 'HPFILLD_TEST_[A-Z_]*' "$1" | sort -u; }
seams() { nm "$1" | awk '{ print $NF }' | grep -E -i 'test|rendezvous|hook|fake|wrap|_create$|_ops$' | grep -v '@' || true; }

[ -n "$(names "$hooked")" ] || { echo "FAIL: no HPFILLD_TEST_* in $hooked: the check cannot tell"; exit 1; }
[ -n "$(seams "$hooked")" ] || { echo "FAIL: no hook symbol in $hooked: the check cannot tell"; exit 1; }
if [ -n "$(names "$bin")" ]; then
        names "$bin"
        echo "FAIL: $bin reads the test hooks above"
        exit 1
fi
echo "ok   no HPFILLD_TEST_* in $bin"
if [ -n "$(seams "$bin")" ]; then
        seams "$bin"
        echo "FAIL: $bin has the test seams above"
        exit 1
fi
echo "ok   no test symbol in $bin"
