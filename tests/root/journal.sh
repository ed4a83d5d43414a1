#!/bin/bash
# SPDX-License-Identifier: MIT
# Settings a fill raises (doc/internals.md, "Changes: intents, settled"): a fault fill killed by
# SIGKILL mid-way leaves nr_overcommit_hugepages raised and its `setting` line in
# run/hpfilld/state; `hpfilld status` says so in every format and changes nothing; the next
# command puts the value back and says so; not a value someone changed since, nor one the fill
# that holds the host lock raised. Mid-fill by a FIFO rendezvous; the kill while the fill waits
# there.
. "$(dirname "$0")/lib.sh"
need_test_hooks

G=$HP/hugepages-2048kB
OC=$G/nr_overcommit_hugepages
STATE_FILE=/run/hpfilld/state
SETTING="setting sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages"
pause_fifo

setting_line() { grep "^$SETTING " "$STATE_FILE" 2>/dev/null || true; }
paused_fill() { # a fault fill of 60 pages, paused after its 2nd chunk: the overcommit raised
        HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 \
                "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool "2M:node$first=$((BASE + 60))" >"$WORK/out1" 2>"$WORK/err1" &
        PID1=$!
        wait_paused "$FIFO"
        [ "$(cat $OC)" = 60 ] || fail "overcommit $(cat $OC) mid-fill, expected 60"
        [ "$(setting_line)" = "$SETTING 3 60" ] || fail "the state's setting mid-fill: '$(setting_line)', expected '$SETTING 3 60'"
}
killed_fill() {
        paused_fill
        kill -KILL $PID1
        wait $PID1 || true
        [ "$(cat $OC)" = 60 ] || fail "overcommit $(cat $OC) after SIGKILL, expected 60 (left raised)"
        [ "$(setting_line)" = "$SETTING 3 60" ] || fail "the state's setting after SIGKILL: '$(setting_line)'"
}
# the log of the next command (the path as the state has it, relative to the root)
MSG="/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages put back to 3 \(a command that ended had raised it to 60\)"

echo 3 >$OC
pool2m_set 0
# the targets on top of the pages others hold (BASE, lib.sh)
T20=$((BASE + 20))

# the setting is in the state before the change it records: the state written with its line,
# swapped into place, then the overcommit written (doc/internals.md)
if command -v strace >/dev/null; then
        expect_rc 0 env ASAN_OPTIONS="$STRACE_ASAN_OPTIONS" strace -f -y -s 65536 -o "$WORK/trace" -e trace=write,rename,renameat,renameat2 \
                "$HPFILLD" --once --mode fault -t 1 --pool "2M:node$first=$T20"
        # the first overcommit write (the raise), and the last save of the state before it
        order=$(awk -v want="$SETTING 3 " '
                /write\([0-9]+<[^>]*nr_overcommit_hugepages>/ && !w { w = NR }
                w { next }
                /write\([0-9]+<\/run\/hpfilld\/\.state\.[0-9]+\.tmp>/ { t = NR; has = index($0, "\\n" want) > 0; m = 0 }
                /rename.*"\.state\.[0-9]+\.tmp".*"state"/ && / = 0$/ { m = NR }
                END { print (w && t && has && t < m && m < w) ? "saved" : "t=" t " setting=" has " m=" m " w=" w }
        ' "$WORK/trace")
        [ "$order" = saved ] || fail "the setting is not in the state before the change ($order): $(grep -E 'rename|overcommit|state' "$WORK/trace")"
        [ "$(cat $OC)" = 3 ] || fail "overcommit $(cat $OC) after the traced fill, expected 3"
        [ -z "$(setting_line)" ] || fail "the setting outlived the traced fill: $(setting_line)"
        pool2m_set 0
else
        echo "strace not installed (tools/setup.sh --test): the setting's save not checked"
fi

# the fill that holds the host lock raised it: status says so, and leaves it; the fill puts the
# value back itself
paused_fill
checkpoint paused
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages: raised from 3 to 60 by the fill that runs now$"
expect_rc 0 "$HPFILLD" status --json
python3 - "$WORK/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["journal"]
assert len(j) == 1 and j[0]["result"] == "raised" and j[0]["found"] == 3 and j[0]["set"] == 60, j
PY
[ "$(cat $OC)" = 60 ] && [ "$(setting_line)" = "$SETTING 3 60" ] || fail "status touched a running fill's setting"
fifo_go "$FIFO"
wait $PID1 || fail "the paused fill failed: $(cat "$WORK/err1")"
[ "$(cat $OC)" = 3 ] || fail "overcommit $(cat $OC) after the fill, expected 3"
[ -z "$(setting_line)" ] || fail "the setting outlived the fill: $(setting_line)"

# SIGKILL, then `hpfilld status` says so, in every format, and changes nothing
pool2m_set 0
killed_fill
before=$(cksum <"$STATE_FILE")
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages: raised from 3 to 60 by a command that ended, 60 now: the next command that changes a pool puts it back$"
expect_rc 0 "$HPFILLD" status --json
python3 - "$WORK/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["journal"]
assert len(j) == 1 and j[0]["result"] == "stale" and j[0]["found"] == 3 and j[0]["set"] == 60 and j[0]["now"] == 60, j
assert j[0]["entry"] == "setting" and j[0]["path"] == "sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages", j
PY
expect_rc 0 "$HPFILLD" status --format=prometheus
expect_in "$WORK/out" '^hpfilld_journal_entry\{entry="setting",path="/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages",result="stale"\} 1$'
[ "$(cat $OC)" = 60 ] || fail "status changed overcommit to $(cat $OC)"
[ "$(cksum <"$STATE_FILE")" = "$before" ] || fail "status changed the state"
expect_rc 0 "$HPFILLD" --once --mode sysfs --pool "2M:node$first=$T20"
expect_in "$WORK/err" "$MSG"
[ "$(cat $OC)" = 3 ] || fail "the fill after status left overcommit at $(cat $OC)"
[ -z "$(setting_line)" ] || fail "the fill after status left the setting: $(setting_line)"
expect_rc 0 "$HPFILLD" status --json
expect_in "$WORK/out" '"journal": \[\]'

# SIGKILL, then a sysfs fill puts it back, says so, and fills; the pages the killed fill added
# are counted as its owner's (the one-off runs'), settled from its intent
pool2m_set 0
expect_rc 0 "$HPFILLD" give-back
killed_fill
expect_rc 0 "$HPFILLD" --once --mode sysfs --pool "2M:node$first=$T20"
expect_in "$WORK/err" "$MSG"
expect_in "$WORK/err" "2M pool of node$first: a change from $BASE to $((BASE + 60)) pages by a command that ended before it was done: [0-9]+ pages? added, counted as the owners'"
[ "$(cat $OC)" = 3 ] || fail "the next fill left overcommit at $(cat $OC)"
[ -z "$(setting_line)" ] || fail "the next fill left the setting: $(setting_line)"
[ "$(node_nr "$first" 2048)" -ge $T20 ] || fail "the next fill: node$first holds $(node_nr "$first" 2048)"
# every page the killed fill and this one added is the one-off runs': give-back takes all of them
expect_rc 0 "$HPFILLD" give-back
[ "$(node_nr "$first" 2048)" = "$BASE" ] || fail "give-back after the killed fill left $(node_nr "$first" 2048) pages on node$first, expected $BASE"

# SIGKILL, then an admin sets the value: it is theirs; status says so, the fill leaves it
pool2m_set 0
killed_fill
echo 500 >$OC
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages: raised from 3 to 60 by a command that ended, 500 now: changed since, left as it is$"
expect_rc 0 "$HPFILLD" status --json
python3 - "$WORK/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["journal"]
assert len(j) == 1 and j[0]["result"] == "changed" and j[0]["now"] == 500, j
PY
[ "$(cat $OC)" = 500 ] || fail "status changed the admin's overcommit to $(cat $OC)"
[ "$(setting_line)" = "$SETTING 3 60" ] || fail "status dropped the setting"
expect_rc 0 "$HPFILLD" --once --mode sysfs --pool "2M:node$first=$T20"
expect_in "$WORK/err" "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages left as it is: a command that ended had raised it from 3 to 60, and it has been changed since"
[ "$(cat $OC)" = 500 ] || fail "the fill changed the admin's overcommit to $(cat $OC)"
[ -z "$(setting_line)" ] || fail "the stale setting was kept: $(setting_line)"
echo 0 >$OC
echo PASS
