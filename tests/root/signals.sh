#!/bin/bash
# SPDX-License-Identifier: MIT
# Every signal that would end hpfilld is a stop request (or ignored, SIGPIPE): a fault fill
# stopped by any of them keeps the pages of finished chunks, puts nr_overcommit_hugepages back
# as found and exits 1; a closed stdout fails the report, not the fill. Mid-fill by a FIFO
# rendezvous (HPFILLD_TEST_PAUSE_FIFO): the signal waits while the fill is paused.
. "$(dirname "$0")/lib.sh"
need_test_hooks

G=$HP/hugepages-2048kB
pause_fifo
echo 3 >$G/nr_overcommit_hugepages
# the target on top of the pages others hold (BASE, lib.sh)
T=$((BASE + 60))

# a fault fill of 60 pages by one worker (chunks of 7, on the main thread, which reads the
# signals between chunks): paused after chunk 2, signalled, let go: it stops after that chunk
for sig in HUP QUIT USR1 USR2 ALRM VTALRM PROF XCPU XFSZ IO PWR RTMIN RTMAX TERM; do
        pool2m_set 0
        HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 \
                "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool "2M:node$first=$T" >"$WORK/out" 2>"$WORK/err" &
        pid=$!
        wait_paused "$FIFO" "$sig"
        kill -s "$sig" $pid
        fifo_go "$FIFO"
        rc=0
        wait $pid || rc=$?
        [ "$rc" = 1 ] || { cat "$WORK/out" "$WORK/err"; fail "SIG$sig: exit $rc, expected 1"; }
        expect_in "$WORK/err" "Interrupted by signal [0-9]+ \(.*\); pages already added stay in the pools"
        expect_in "$WORK/out" "^2M pool: $((BASE + 14))/$T pages .*, interrupted$"
        [ "$(node_nr "$first" 2048)" = $((BASE + 14)) ] || fail "SIG$sig: node$first holds $(node_nr "$first" 2048) pages, expected $((BASE + 14))"
        pool2m_clean 3
done

# SIGPIPE: stdout is a FIFO whose reader goes away while the fill is paused; the fill
# completes, the overcommit is put back, the report's write fails and says so: exit 1
pool2m_set 0
mkfifo "$WORK/stdout"
exec 3<>"$WORK/stdout" # held open both ways until hpfilld has it, so neither open blocks
HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 \
        "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool "2M:node$first=$T" >"$WORK/stdout" 2>"$WORK/err" 3<&- &
pid=$!
wait_paused "$FIFO" "SIGPIPE"
exec 3<&- # no reader left
fifo_go "$FIFO"
rc=0
wait $pid || rc=$?
[ "$rc" = 1 ] || { cat "$WORK/err"; fail "closed stdout: exit $rc, expected 1"; }
expect_in "$WORK/err" "Cannot write the report to standard output: Broken pipe"
[ "$(node_nr "$first" 2048)" = $T ] || fail "closed stdout: node$first holds $(node_nr "$first" 2048) pages, expected $T"
pool2m_clean 3

# the same as a user would: the reader exits after one byte; whether or not the report's
# write comes after that, the fill is whole and the overcommit as found
pool2m_set 0
set +o pipefail
"$HPFILLD" --once --mode fault -v --pool "2M:node$first=$T" 2>&1 | head -c1 >/dev/null
[ "$(node_nr "$first" 2048)" = $T ] || fail "| head -c1: node$first holds $(node_nr "$first" 2048) pages, expected $T"
pool2m_clean 3
echo 0 >$G/nr_overcommit_hugepages
echo PASS
