#!/bin/sh
# SPDX-License-Identifier: MIT
# A build without -Dtest-hooks=true (what gets installed) holds no HPFILLD_TEST_* hook: the
# names are not in the binary, so no environment can reach them.
set -eu
if grep -a -o 'HPFILLD_TEST_[A-Z_]*' "$1"; then
        echo "FAIL: $1 reads the test hooks above"
        exit 1
fi
echo "ok   no HPFILLD_TEST_* in $1"
