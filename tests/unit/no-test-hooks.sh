#!/bin/sh
# SPDX-License-Identifier: MIT
# A build without -Dtest-hooks=true (what gets installed) holds no test seam: no HPFILLD_TEST_*
# name (so no environment can reach a hook) and no symbol a test would put its fake in the place
# of (a writable function pointer, a rendezvous, a hook).
set -eu
bin=$1
if grep -a -o 'HPFILLD_TEST_[A-Z_]*' "$bin"; then
        echo "FAIL: $bin reads the test hooks above"
        exit 1
fi
echo "ok   no HPFILLD_TEST_* in $bin"
command -v nm >/dev/null || { echo "SKIP: no nm (package binutils) to read the symbols"; exit 77; }
# every symbol with a name of the tests' (the C library's and the loader's aside)
if nm "$bin" | awk '{ print $NF }' | grep -E -i 'test|rendezvous|hook|fake|_create$|_ops$' | grep -v '@'; then
        echo "FAIL: $bin has the test seams above"
        exit 1
fi
echo "ok   no test symbol in $bin"
