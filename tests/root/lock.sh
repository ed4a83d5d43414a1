#!/bin/bash
# SPDX-License-Identifier: MIT
# One fill per host: a second hpfilld waits for the first (saying who it is), plans again on
# what the first left, and ends with the pools and the overcommit as they should be; it gives
# up after --lock-timeout; --dry-run takes no lock. Mid-fill by a FIFO rendezvous.
. "$(dirname "$0")/lib.sh"
need_test_hooks

G=$HP/hugepages-2048kB
pause_fifo
mkfifo "$WORK/err2"
first_paused() { # hpfilld args...: the first fill, paused after its 2nd chunk, holding the lock
        HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 "$HPFILLD_HOOKED" "$@" >"$WORK/out1" 2>"$WORK/err1" &
        PID1=$!
        wait_paused "$FIFO"
}
resume_first() {
        fifo_go "$FIFO"
        local rc=0
        wait $PID1 || rc=$?
        [ "$rc" = 0 ] || { cat "$WORK/out1" "$WORK/err1"; fail "the first fill exited $rc"; }
}
echo 3 >$G/nr_overcommit_hugepages
# the targets on top of the pages others hold (BASE, lib.sh)
T60=$((BASE + 60)) T100=$((BASE + 100))

# the second waits, names the first, and goes on once it is done
pool2m_set 0
first_paused --once --mode fault -t 1 --pool "2M:node$first=$T60"
"$HPFILLD" --once --mode fault --pool "2M:node$first=$T100" >"$WORK/out2" 2>"$WORK/err2" &
PID2=$!
exec 4<"$WORK/err2"
read_waiting || true
echo "$line" | grep -Eq "Another fill is running: pid $PID1 \(hpfilld --once, since [0-9:]+\); waiting up to 60 s" ||
        fail "the second fill said '$line'"
resume_first
second_exits 0
expect_in "$WORK/err2.rest" "The other fill has ended, going on"
expect_in "$WORK/out1" "^2M pool: $T60/$T60 pages"
# planned again on the 60 pages the first one left: 40 more
expect_in "$WORK/out2" "^2M pool: $T100/$T100 pages"
expect_in "$WORK/out2" "node$first: $T60 -> $T100 \(target $T100\)"
[ "$(node_nr "$first" 2048)" = $T100 ] || fail "node$first holds $(node_nr "$first" 2048) pages, expected $T100"
pool2m_clean 3

# the second gives up after --lock-timeout, having changed nothing; --dry-run does not wait
pool2m_set 0
first_paused --once --mode fault -t 1 --pool "2M:node$first=$T60"
before=$(snapshot)
expect_rc 1 "$HPFILLD" --once --lock-timeout 1 --mode fault --pool "2M:node$first=$T100"
expect_in "$WORK/err" "Gave up after 1 s: the fill of pid $PID1 \(hpfilld --once, since [0-9:]+\) still runs"
[ "$(snapshot)" = "$before" ] || fail "the fill that gave up changed the pools"
expect_rc 0 "$HPFILLD" --once --lock-timeout 0 --dry-run --pool "2M:node$first=$T100"
expect_rc 0 "$HPFILLD" status
resume_first
pool2m_clean 3

# two fault fills started together, 4 times: both succeed, the overcommit ends as found
for trial in 1 2 3 4; do
        pool2m_set 0
        "$HPFILLD" --once --mode fault --pool "2M:node$first=$T100" >"$WORK/a" 2>&1 &
        a=$!
        "$HPFILLD" --once --mode fault --pool "2M:node$first=$T100" >"$WORK/b" 2>&1 &
        b=$!
        rca=0 rcb=0
        wait $a || rca=$?
        wait $b || rcb=$?
        [ "$rca$rcb" = 00 ] || { cat "$WORK/a" "$WORK/b"; fail "trial $trial: exit statuses $rca and $rcb"; }
        [ "$(node_nr "$first" 2048)" = $T100 ] || fail "trial $trial: node$first holds $(node_nr "$first" 2048) pages"
        pool2m_clean 3
done
[ "$(stat -c %a /run/hpfilld)" = 755 ] || fail "/run/hpfilld has mode $(stat -c %a /run/hpfilld)"
echo 0 >$G/nr_overcommit_hugepages
echo PASS
