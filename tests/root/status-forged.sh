#!/bin/bash
# SPDX-License-Identifier: MIT
# The neighbour's state: `hpfilld status --root T` as root, on a tree a user built, whose
# run/hpfilld/state has settings that name a process's oom_score_adj and a root-only file through
# symbolic links. status only reads (no capability left): it changes neither, and says what it
# found in every format; a command that changes the pools there (give-back) puts back neither.
. "$(dirname "$0")/lib.sh"

id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
chmod 755 "$WORK"
sleep 600 &
VPID=$!
EXTRA_CLEANUP="kill $VPID 2>/dev/null"
echo 0 >/proc/$VPID/oom_score_adj
VICTIM=$WORK/victim
mkdir -m 700 "$VICTIM"
echo 63 >"$VICTIM/nr_overcommit_hugepages"
chmod 600 "$VICTIM/nr_overcommit_hugepages"
T=$WORK/tree
mkdir "$T"
chown nobody "$T"

# the user's tree: a machine of one node, page sizes that are links out of it, forged entries
setpriv --reuid=65534 --regid=65534 --clear-groups bash -eu -s "$T" "$VPID" "$VICTIM" <<'SH'
T=$1 VPID=$2 VICTIM=$3
n=$T/sys/devices/system/node
mkdir -p "$n/node0/hugepages/hugepages-2048kB" "$T/sys/kernel/mm/hugepages" "$T/run/hpfilld" "$T/proc"
for f in online has_memory; do echo 0 >"$n/$f"; done
echo 0-1 >"$n/has_cpu"; echo 0-1 >"$n/node0/cpulist"; echo 10 >"$n/node0/distance"
printf 'Node 0 MemTotal:       4194304 kB\nNode 0 MemFree:        4000000 kB\n' >"$n/node0/meminfo"
for f in nr_hugepages free_hugepages surplus_hugepages; do echo 0 >"$n/node0/hugepages/hugepages-2048kB/$f"; done
ln -s /proc/$VPID "$T/sys/kernel/mm/hugepages/hugepages-2048kB"
ln -s "$VICTIM" "$T/sys/kernel/mm/hugepages/hugepages-4096kB"
cd "$T/run/hpfilld"
# the one setting the state may name is a pool's nr_overcommit_hugepages (here through a link)
printf 'hpfilld-state 1\nseq 0\nsetting sys/kernel/mm/hugepages/hugepages-4096kB/nr_overcommit_hugepages 0 63\nend\n' >state
SH
STATE_T=$T/run/hpfilld/state
untouched() {
        [ "$(cat /proc/$VPID/oom_score_adj)" = 0 ] || fail "$1: oom_score_adj is $(cat /proc/$VPID/oom_score_adj)"
        [ "$(cat "$VICTIM/nr_overcommit_hugepages")" = 63 ] || fail "$1: the root-only file was written"
        [ "$(cksum <"$STATE_T")" = "$forged" ] || fail "$1: the state was changed: $(cat "$STATE_T")"
}
forged=$(cksum <"$STATE_T")
# unread WHY WHAT: status, in every format, reads none of the state, says WHY (an ERE), touches nothing
unread() {
        local fmt
        for fmt in text json prometheus; do
                expect_rc 0 "$HPFILLD" status --root "$T" --format=$fmt
                expect_in "$WORK/err" "Cannot read the state: $1, ignoring"
                untouched "status --format=$fmt, $2"
        done
}

# the user's own run/hpfilld: not read at all, said
unread "$T/run/hpfilld: Operation not permitted" "the user's run/hpfilld"

# a run/hpfilld of root's (the state copied in by an admin): read, the setting said, not acted on
chown -R root:root "$T/run"
chmod 644 "$STATE_T"
expect_rc 0 "$HPFILLD" status --root "$T"
expect_in "$WORK/out" "^/sys/kernel/mm/hugepages/hugepages-4096kB/nr_overcommit_hugepages: raised from 0 to 63 by a command that ended; cannot be read: (Not a directory|Too many levels of symbolic links)$"
untouched "status"
expect_rc 0 "$HPFILLD" status --root "$T" --json
python3 - "$WORK/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["journal"]
assert [(e["entry"], e["path"], e["result"]) for e in j] == [
    ("setting", "sys/kernel/mm/hugepages/hugepages-4096kB/nr_overcommit_hugepages", "failed")], j
PY
untouched "status --json"
expect_rc 0 "$HPFILLD" status --root "$T" --format=prometheus
expect_in "$WORK/out" '^hpfilld_journal_entry\{entry="setting",path="/sys/kernel/mm/hugepages/hugepages-4096kB/nr_overcommit_hugepages",result="failed"\} 1$'
untouched "status --format=prometheus"

# a command that changes the pools settles the state first: the file behind the link is neither
# read nor put back to 0 (the setting stays, for a later try)
expect_rc 0 "$HPFILLD" give-back --root "$T"
expect_in "$WORK/err" "Cannot put $T/sys/kernel/mm/hugepages/hugepages-4096kB/nr_overcommit_hugepages back to 0 \(raised to 63 by a command that ended\): (Not a directory|Too many levels of symbolic links); the next command tries again"
[ "$(cat /proc/$VPID/oom_score_adj)" = 0 ] || fail "give-back: oom_score_adj is $(cat /proc/$VPID/oom_score_adj)"
[ "$(cat "$VICTIM/nr_overcommit_hugepages")" = 63 ] || fail "give-back: the root-only file behind the link was written"

# a setting of anything else than a pool's overcommit: the state is refused, said, nothing read
printf 'hpfilld-state 1\nseq 0\nsetting sys/kernel/mm/hugepages/hugepages-2048kB/oom_score_adj 500 0\nend\n' >"$STATE_T"
forged=$(cksum <"$STATE_T")
unread "$T/run/hpfilld/state: line 3: not setting PATH FOUND SET, of a pool's nr_overcommit_hugepages" "a setting of oom_score_adj"
expect_rc 1 "$HPFILLD" give-back --root "$T"
expect_in "$WORK/err" "Cannot read $T/run/hpfilld/state: line 3: not setting PATH FOUND SET"
untouched "give-back, a setting of oom_score_adj"
echo PASS
