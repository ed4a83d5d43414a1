#!/bin/bash
# SPDX-License-Identifier: MIT
# SIGINT mid-fill: the fill stops between steps, reports what it did, exits 1; pages stay.
. "$(dirname "$0")/lib.sh"
need_test_hooks

pool2m_set 0
# the target on top of the pages others hold (BASE: lib.sh)
T=$((BASE + 100))

# Steps of 10 pages; after the 3rd write hpfilld sends itself a real SIGINT and waits for
# its own signal handling to stop the fill: mid-fill by construction, no timing involved.
HPFILLD_TEST_STEP_PAGES=10 HPFILLD_TEST_INTERRUPT_AFTER_STEPS=3 \
        expect_rc 1 "$HPFILLD_HOOKED" --once --pool "2M:node$first=$T"
expect_in "$WORK/err" "Interrupted by signal 2"
expect_in "$WORK/out" "^2M pool: $((BASE + 30))/$T pages on 1 node in [0-9]+ ms \(sysfs, 1 writer\)(, auto: .*)?, interrupted$"
expect_in "$WORK/out" "node$first: $BASE -> $((BASE + 30)) \(target $T, short\)"
[ "$(node_nr "$first" 2048)" = $((BASE + 30)) ] || fail "node$first holds $(node_nr "$first" 2048) pages, expected $((BASE + 30))"

# a later run completes the fill
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T"
[ "$(node_nr "$first" 2048)" = $T ] || fail "the second run left $(node_nr "$first" 2048) pages"
echo PASS
