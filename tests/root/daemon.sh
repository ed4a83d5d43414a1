#!/bin/bash
# SPDX-License-Identifier: MIT
# The daemon under a real NOTIFY_SOCKET (tests/root/notify.py does the talking), and
# `hpfilld status` as root and as nobody.
# In a mount namespace of its own: the reservation goes to the mount the test makes, never to
# another's (a consumer's hugetlbfs mount of this host)
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

pool2m_set 0
# a private hugetlbfs mount for the reservation scenario, if mounting works here
MNT="$WORK/huge"
mkdir -p "$MNT"
if mount -t hugetlbfs -o pagesize=2M none "$MNT"; then
        EXTRA_CLEANUP="rm -rf '$MNT/hpfilld'; umount '$MNT'"
else
        MNT=""
fi
# status: the pools per node, readable by anyone; the last fill recorded (on top of the pages
# others hold: BASE, lib.sh)
pool2m_set 0
T=$((BASE + 24))
free=$(($(node_base_free "$first") + 24))
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T"
expect_rc 0 setpriv --reuid=nobody --regid=nogroup --clear-groups "$HPFILLD" status
expect_in "$WORK/out" "^SIZE +NODE +TARGET +PAGES +GiB +FREE +SURPLUS$"
expect_in "$WORK/out" "^2M +node$first +$T +$T +$(python3 -c "print('%.2f' % ($T * 2 / 1024))" | sed 's/\./\\./') +$free +0$"
expect_rc 0 setpriv --reuid=nobody --regid=nogroup --clear-groups "$HPFILLD" status --json
python3 - "$WORK/out" "$first" "$T" "$free" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
T, free = int(sys.argv[3]), int(sys.argv[4])
p = [p for p in d["pools"] if p["page_size"] == 2 << 20][0]
n = [n for n in p["nodes"] if n["node"] == int(sys.argv[2])][0]
assert n["pages"] == T and n["free"] == free and n["surplus"] == 0, n
assert n["target"] == T, n
assert d["last_fill"] is not None and [s["page_size"] for s in d["last_fill"]["sizes"]] == [2 << 20], d["last_fill"]
assert d["last_fill"]["exit_status"] == 0
PY
# the one-off run's pages given back: the daemons start from the pages others hold
expect_rc 0 "$HPFILLD" give-back
[ "$(node_nr "$first" 2048)" = "$BASE" ] || fail "give-back left $(node_nr "$first" 2048) pages on node$first, expected $BASE"

# (its files below $WORK, gone with it however it ends)
TMPDIR=$WORK python3 "$(dirname "$0")/notify.py" "$HPFILLD" "$first" $MNT || fail "notify.py"
echo PASS
