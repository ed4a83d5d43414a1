#!/bin/bash
# SPDX-License-Identifier: MIT
# The journal: a fault fill killed by SIGKILL mid-way leaves nr_overcommit_hugepages raised
# and its journal entry; `hpfilld status` says so in every format and changes nothing; a later
# fill puts the value back and says so; not a value someone changed since, nor one whose owner
# still runs. Mid-fill by a FIFO
# rendezvous; the kill while the fill waits there.
. "$(dirname "$0")/lib.sh"
need_test_hooks

G=$HP/hugepages-2048kB
OC=$G/nr_overcommit_hugepages
ENTRY=/run/hpfilld/changed.hugepages-2048kB.nr_overcommit_hugepages
pause_fifo
EXTRA_CLEANUP='rm -f $ENTRY'

paused_fill() { # a fault fill of 60 pages, paused after its 2nd chunk: the overcommit raised
        HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 \
                "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool "2M:node$first=$((BASE + 60))" >"$WORK/out1" 2>"$WORK/err1" &
        PID1=$!
        wait_paused "$FIFO"
        [ "$(cat $OC)" = 60 ] || fail "overcommit $(cat $OC) mid-fill, expected 60"
        [ -f $ENTRY ] || fail "no journal entry mid-fill"
        grep -Eq "^path=sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages found=3 set=60 pid=$PID1 start=[0-9]+$" $ENTRY ||
                fail "journal entry: $(cat $ENTRY)"
}
killed_fill() {
        paused_fill
        kill -KILL $PID1
        wait $PID1 || true
        [ "$(cat $OC)" = 60 ] || fail "overcommit $(cat $OC) after SIGKILL, expected 60 (left raised)"
        [ -f $ENTRY ] || fail "no journal entry after SIGKILL"
}
MSG="Put /sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages back to 3: pid [0-9]+ raised it to 60 and ended before it put it back"

echo 3 >$OC
pool2m_set 0
# the targets on top of the pages others hold (BASE, lib.sh)
T20=$((BASE + 20))

# the entry is on disk before the change it records: written, synced, renamed into place and
# its directory synced, then the overcommit written (as journal.h says)
if command -v strace >/dev/null; then
        expect_rc 0 env ASAN_OPTIONS="$STRACE_ASAN_OPTIONS" strace -f -y -o "$WORK/trace" -e trace=write,fsync,rename,renameat,renameat2 \
                "$HPFILLD" --once --mode fault -t 1 --pool "2M:node$first=$T20"
        order=$(awk '
                /fsync\(.*<\/run\/hpfilld\/\.changed\..*\.tmp>\)/ && !f { f = NR }
                /rename.*"changed\.hugepages-2048kB\.nr_overcommit_hugepages"/ && !m { m = NR }
                /fsync\([0-9]+<\/run\/hpfilld>\)/ && !d { d = NR }
                /write\([0-9]+<[^>]*nr_overcommit_hugepages>/ && !w { w = NR }
                END { print (f && m && d && w && f < m && m < d && d < w) ? "synced" : "f=" f " m=" m " d=" d " w=" w }
        ' "$WORK/trace")
        [ "$order" = synced ] || fail "the journal entry is not synced before the change ($order): $(grep -E 'fsync|rename|overcommit' "$WORK/trace")"
        [ "$(cat $OC)" = 3 ] || fail "overcommit $(cat $OC) after the traced fill, expected 3"
        pool2m_set 0
else
        echo "strace not installed (tools/setup.sh --test): the journal's sync not checked"
fi

# a live owner's entry is left alone by status; the owner puts the value back itself
paused_fill
checkpoint paused
expect_rc 0 "$HPFILLD" status
[ "$(cat $OC)" = 60 ] && [ -f $ENTRY ] || fail "status touched a running fill's setting"
fifo_go "$FIFO"
wait $PID1 || fail "the paused fill failed: $(cat "$WORK/err1")"
[ "$(cat $OC)" = 3 ] || fail "overcommit $(cat $OC) after the fill, expected 3"
[ ! -e $ENTRY ] || fail "the journal entry outlived the fill"

# SIGKILL, then `hpfilld status` says so, in every format, and changes nothing
pool2m_set 0
killed_fill
before=$(cat $ENTRY)
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages is still 60: pid [0-9]+, which is gone, raised it from 3 and did not put it back; the next fill puts it back$"
expect_rc 0 "$HPFILLD" status --json
python3 - "$WORK/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["journal"]
assert len(j) == 1 and j[0]["result"] == "stale" and j[0]["found"] == 3 and j[0]["set"] == 60, j
assert j[0]["entry"] == "changed.hugepages-2048kB.nr_overcommit_hugepages", j
PY
expect_rc 0 "$HPFILLD" status --format=prometheus
expect_in "$WORK/out" '^hpfilld_journal_entry\{entry="changed.hugepages-2048kB.nr_overcommit_hugepages",path="/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages",result="stale"\} 1$'
[ "$(cat $OC)" = 60 ] || fail "status changed overcommit to $(cat $OC)"
[ "$(cat $ENTRY)" = "$before" ] || fail "status changed the journal entry"
expect_rc 0 "$HPFILLD" --once --mode sysfs --pool "2M:node$first=$T20"
expect_in "$WORK/err" "$MSG"
[ "$(cat $OC)" = 3 ] || fail "the fill after status left overcommit at $(cat $OC)"
[ ! -e $ENTRY ] || fail "the fill after status left the journal entry"
expect_rc 0 "$HPFILLD" status --json
expect_in "$WORK/out" '"journal": \[\]'

# SIGKILL, then a sysfs fill puts it back, says so, and fills
pool2m_set 0
killed_fill
expect_rc 0 "$HPFILLD" --once --mode sysfs --pool "2M:node$first=$T20"
expect_in "$WORK/err" "$MSG"
[ "$(cat $OC)" = 3 ] || fail "the next fill left overcommit at $(cat $OC)"
[ ! -e $ENTRY ] || fail "the next fill left the journal entry"
[ "$(node_nr "$first" 2048)" = $T20 ] || fail "the next fill: node$first holds $(node_nr "$first" 2048)"

# SIGKILL, then an admin sets the value: it is theirs; status says so, the fill leaves it
pool2m_set 0
killed_fill
echo 500 >$OC
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "The next fill leaves /sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages at 500: pid [0-9]+, which is gone, had set it to 60 \(from 3\), but it was changed since \(and drops the entry\)"
[ "$(cat $OC)" = 500 ] || fail "status changed the admin's overcommit to $(cat $OC)"
[ -e $ENTRY ] || fail "status dropped the entry"
expect_rc 0 "$HPFILLD" --once --mode sysfs --pool "2M:node$first=$T20"
expect_in "$WORK/err" "Left /sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages at 500: pid [0-9]+, which is gone, had set it to 60 \(from 3\), but it was changed since"
[ "$(cat $OC)" = 500 ] || fail "the fill changed the admin's overcommit to $(cat $OC)"
[ ! -e $ENTRY ] || fail "the stale entry was kept"
echo 0 >$OC
echo PASS
