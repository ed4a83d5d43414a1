#!/bin/sh
# SPDX-License-Identifier: MIT
# no-test-hooks.sh HPFILLD HOOKED: the binary that gets installed holds no test seam: no
# HPFILLD_TEST_* name (so no environment can reach a hook) and no symbol of a test seam (a hook,
# a link-time wrapper, a rendezvous, the writable function pointer and the vtable there were).
# The same checks find the hooks in HOOKED (tests/hpfilld-hooked), so they can tell.
set -eu
bin=$1 hooked=$2
command -v nm >/dev/null || { echo "SKIP: no nm (package binutils) to read the symbols"; exit 77; }
names() { grep -a -o 'HPFILLD_TEST_[A-Z_]*' "$1" | sort -u; }
seams() { nm "$1" | awk '{ print $NF }' | grep -E -i 'test|rendezvous|hook|fake|__wrap_|__real_|executor_thread_create|pool_ops' | grep -v '@' || true; }

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
