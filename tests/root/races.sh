#!/bin/bash
# SPDX-License-Identifier: MIT
# Interruptions at every step of sysfs and fault fills, an admin writing the same knobs
# mid-fill, and a workload taking pages mid-fill: nothing a workload holds is taken, the
# overcommit value ends as the admin left it, the report is true, the exit status the
# documented one. Mid-fill by construction: test hooks in hpfilld (hpfilld(8), ENVIRONMENT).
. "$(dirname "$0")/lib.sh"
need_test_hooks

G=$HP/hugepages-2048kB
echo 0 >$G/nr_overcommit_hugepages
# the target on top of the pages others hold (BASE, lib.sh)
T=$((BASE + 60))

# SIGINT after each step k of a sysfs fill in steps of 10 pages: exactly 10k pages, exit 1
for k in 1 2 3 4 5; do
        pool2m_set 0
        HPFILLD_TEST_STEP_PAGES=10 HPFILLD_TEST_INTERRUPT_AFTER_STEPS=$k \
                expect_rc 1 "$HPFILLD_HOOKED" --once --mode sysfs --pool "2M:node$first=$T"
        [ "$(node_nr "$first" 2048)" = $((BASE + 10 * k)) ] || fail "sysfs, stopped after step $k: $(node_nr "$first" 2048) pages"
        expect_in "$WORK/out" "^2M pool: $((BASE + 10 * k))/$T pages .*, interrupted$"
        pool2m_clean 0
done

# the same for the fault method with one worker (chunks of 60/8 = 7 pages)
for k in 1 2 3 4; do
        pool2m_set 0
        HPFILLD_TEST_INTERRUPT_AFTER_STEPS=$k \
                expect_rc 1 "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool "2M:node$first=$T"
        [ "$(node_nr "$first" 2048)" = $((BASE + 7 * k)) ] || fail "fault, stopped after chunk $k: $(node_nr "$first" 2048) pages"
        expect_in "$WORK/out" "^2M pool: $((BASE + 7 * k))/$T pages .*, interrupted$"
        pool2m_clean 0
done

# pause mid-fill at a rendezvous, do something to the host, let it go on
pause_fifo
paused_run() { # after-steps, hpfilld args...
        local after=$1
        shift
        HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=$after "$HPFILLD_HOOKED" "$@" \
                >"$WORK/out" 2>"$WORK/err" &
        HPID=$!
        wait_paused "$FIFO"
}
resume() { # expected exit status
        echo go >"$FIFO"
        local rc=0
        wait $HPID || rc=$?
        [ "$rc" = "$1" ] || { cat "$WORK/out" "$WORK/err"; fail "exit $rc, expected $1"; }
}

# an admin raises the overcommit during a fault fill: their value stays, not ours nor the old one
pool2m_set 0
paused_run 2 --once --mode fault -t 1 --pool "2M:node$first=$T"
echo 500 >$G/nr_overcommit_hugepages
resume 0
[ "$(node_nr "$first" 2048)" = $T ] || fail "fault with an admin's overcommit: $(node_nr "$first" 2048) pages"
pool2m_clean 500
echo 0 >$G/nr_overcommit_hugepages

# an admin grows the pool during a sysfs fill: hpfilld does not shrink it back to its step
pool2m_set 0
HPFILLD_TEST_STEP_PAGES=10 paused_run 1 --once --mode sysfs --pool "2M:node$first=$T"
echo $((BASE + 45)) >"$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages"
resume 0
[ "$(node_nr "$first" 2048)" = $T ] || fail "sysfs with an admin's write: $(node_nr "$first" 2048) pages"

# a workload maps and holds pages during a fill; they stay its own, the fill completes around them
for mode in sysfs fault; do
        pool2m_set 0
        HPFILLD_TEST_STEP_PAGES=10 paused_run 1 --once --mode $mode -t 1 --pool "2M:node$first=$T"
        hold_pages 5
        resume 0
        [ "$(node_nr "$first" 2048)" -ge $T ] || fail "$mode with a workload: $(node_nr "$first" 2048) pages"
        # in use beside what others use
        in_use=$(($(cat $G/nr_hugepages) - $(cat $G/free_hugepages) - (BASE_ALL - BASE_FREE)))
        [ "$in_use" = 5 ] || fail "$mode: $in_use pages in use, the workload's 5 expected"
        hold_release
        pool2m_clean 0
done
echo PASS
