#!/bin/bash
# SPDX-License-Identifier: MIT
# The neighbour's journal: `hpfilld status --root T` as root, on a tree a user built, whose
# journal names a process's oom_score_adj and a root-only file through symbolic links. status
# only reads (no capability left): it changes neither, and says what it found in every format.
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
echo "path=sys/kernel/mm/hugepages/hugepages-2048kB/oom_score_adj found=500 set=0 pid=999999 start=1" \
        >changed.hugepages-2048kB.oom_score_adj
echo "path=sys/kernel/mm/hugepages/hugepages-4096kB/nr_overcommit_hugepages found=0 set=63 pid=999999 start=1" \
        >changed.hugepages-4096kB.nr_overcommit_hugepages
SH
untouched() {
        [ "$(cat /proc/$VPID/oom_score_adj)" = 0 ] || fail "$1: oom_score_adj is $(cat /proc/$VPID/oom_score_adj)"
        [ "$(cat "$VICTIM/nr_overcommit_hugepages")" = 63 ] || fail "$1: the root-only file was written"
        [ -e "$T/run/hpfilld/changed.hugepages-2048kB.oom_score_adj" ] &&
                [ -e "$T/run/hpfilld/changed.hugepages-4096kB.nr_overcommit_hugepages" ] || fail "$1: an entry was removed"
}

# the user's own run/hpfilld: not read at all, said
for fmt in text json prometheus; do
        expect_rc 0 "$HPFILLD" status --root "$T" --format=$fmt
        expect_in "$WORK/err" "Cannot read the journal in $T/run/hpfilld: Operation not permitted, ignoring"
        untouched "status --format=$fmt, the user's run/hpfilld"
done

# a run/hpfilld of root's (the entries copied in by an admin): read, each entry said, none acted on
chown -R root:root "$T/run"
expect_rc 0 "$HPFILLD" status --root "$T"
expect_in "$WORK/out" "^$T/run/hpfilld/changed.hugepages-2048kB.oom_score_adj is not an entry hpfilld makes, or names no pool setting: Bad message; left alone, nothing written$"
expect_in "$WORK/out" "^$T/run/hpfilld/changed.hugepages-4096kB.nr_overcommit_hugepages is not an entry hpfilld makes, or names no pool setting: (Not a directory|Too many levels of symbolic links); left alone, nothing written$"
untouched "status"
expect_rc 0 "$HPFILLD" status --root "$T" --json
python3 - "$WORK/out" <<'PY'
import json, sys
j = sorted(json.load(open(sys.argv[1]))["journal"], key=lambda e: e["entry"])
assert [(e["entry"], e["result"]) for e in j] == [
    ("changed.hugepages-2048kB.oom_score_adj", "invalid"),
    ("changed.hugepages-4096kB.nr_overcommit_hugepages", "invalid")], j
PY
untouched "status --json"
expect_rc 0 "$HPFILLD" status --root "$T" --format=prometheus
expect_in "$WORK/out" '^hpfilld_journal_entry\{entry="changed.hugepages-2048kB.oom_score_adj",path="",result="invalid"\} 1$'
expect_in "$WORK/out" '^hpfilld_journal_entry\{entry="changed.hugepages-4096kB.nr_overcommit_hugepages",path="/sys/kernel/mm/hugepages/hugepages-4096kB/nr_overcommit_hugepages",result="invalid"\} 1$'
untouched "status --format=prometheus"
echo PASS
