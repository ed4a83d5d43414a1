#!/bin/bash
# SPDX-License-Identifier: MIT
# `hpfilld status` as an admin reads it: the last plan's targets next to what the pools hold,
# GiB beside pages, what the last exit status means, and every reservation on disk (name, size,
# node, file, owner, mode, in use or not), also one an earlier fill made and a later one did not
# name; as root and as nobody.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

mount_huge
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# the targets of the last plan beside the pools, in pages and GiB
pool2m_set 0
# pages others on this host hold stay in the pool: the targets are on top of them
T=$(( $(node_nr "$first" 2048) + 100 ))
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T" --reserve "vm1:2M:64M@$first"
grep -q "^vm1 reservation: .* at $MNT/hpfilld/vm1\$" "$WORK/out" || { echo "SKIP: another hugetlbfs mount came first"; exit 77; }
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n[Reserve]\nName=vm2\nPageSize=2M\nAmount=8\nOwner=nobody\nGroup=nogroup\nMode=0640\n' \
        "$first" "$T" >"$WORK/r.conf"
expect_rc 0 "$HPFILLD" --once --config "$WORK/r.conf"
[ -f "$MNT/hpfilld/vm1" ] || fail "the second fill removed vm1"

# vm1 mapped by a consumer (a VM would): in use; vm2: not
coproc MAP { python3 -c '
import mmap, sys
f = open(sys.argv[1], "r+b"); m = mmap.mmap(f.fileno(), 0); m[0:1] = b"x"
print("mapped", flush=True); sys.stdin.readline()' "$MNT/hpfilld/vm1"; }
read -r line <&"${MAP[0]}" || true
[ "$line" = mapped ] || fail "could not map vm1: '$line'"

expect_rc 0 "$HPFILLD" status
cat "$WORK/out"
expect_in "$WORK/out" "^SIZE +NODE +TARGET +PAGES +GiB +FREE +SURPLUS$"
gib=$(python3 -c "print('%.2f' % ($T * 2 / 1024))")
expect_in "$WORK/out" "^2M +node$first +$T +$T +$gib +[0-9]+ +0$"
expect_in "$WORK/out" "^2M +all +target $T pages \($gib GiB\), the pools hold $T \($gib GiB\)$"
expect_in "$WORK/out" "^Last fill: .*, exit status 0$"
expect_in "$WORK/out" "^  exit status 0: every target met$"
expect_in "$WORK/out" "^  2M pool: $T/$T pages"
expect_in "$WORK/out" "^RESERVATION +SIZE +NODE +PAGES +GiB +OWNER +MODE +USE +FILE$"
expect_in "$WORK/out" "^vm1 +2M +node$first +32 +0\.06 +root:root +0600 +in-use +$MNT/hpfilld/vm1$"
expect_in "$WORK/out" "^vm2 +2M +node[0-9,]+ +8 +0\.02 +nobody:nogroup +0640 +free +$MNT/hpfilld/vm2$"
expect_rc 0 "$HPFILLD" status --json
python3 - "$WORK/out" "$MNT" "$first" "$T" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); mnt = sys.argv[2]; first = int(sys.argv[3]); T = int(sys.argv[4])
r = {x["name"]: x for x in d["reservations"]}
assert set(r) >= {"vm1", "vm2"}, r
assert r["vm1"] == {"name": "vm1", "page_size": 2 << 20, "pages": 32, "nodes": [first], "path": mnt + "/hpfilld/vm1",
                    "uid": 0, "owner": "root", "gid": 0, "group": "root", "mode": "0600", "use": "in-use"}, r["vm1"]
assert r["vm2"]["nodes"] and all(type(n) is int for n in r["vm2"]["nodes"]) and r["vm2"]["use"] == "free" and r["vm2"]["owner"] == "nobody" and r["vm2"]["mode"] == "0640", r["vm2"]
p = [p for p in d["pools"] if p["page_size"] == 2 << 20][0]
n = [n for n in p["nodes"] if n["node"] == first][0]
assert n["target"] == T and n["pages"] == T and n["surplus"] == 0, n
assert d["last_fill"]["exit_status"] == 0 and d["last_fill"]["exit_meaning"] == "ok", d["last_fill"]
assert d["last_fill"]["summary"].startswith("2M pool: %d/%d pages" % (T, T)) and "vm2 reservation: 8/8" in d["last_fill"]["summary"], d["last_fill"]
PY

# nobody sees every reservation; whether root's vm1 is in use is not for nobody to tell; a
# mount nobody cannot look in is said
expect_rc 0 nobody "$HPFILLD" status
expect_in "$WORK/out" "^Reservations: none$"
expect_in "$WORK/err" "Cannot look for reservations: $MNT: Permission denied, ignoring"
chmod 755 "$WORK"
expect_rc 0 nobody "$HPFILLD" status
expect_in "$WORK/out" "^vm1 +2M +node$first +32 +0\.06 +root:root +0600 +unknown +$MNT/hpfilld/vm1$"
expect_in "$WORK/out" "^vm2 +2M +node[0-9,]+ +8 +0\.02 +nobody:nogroup +0640 +free +$MNT/hpfilld/vm2$"
echo >&"${MAP[1]}"
wait "$MAP_PID" 2>/dev/null || true

# still listed after a third fill without reservations, gone once released
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T"
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^vm1 +2M +node$first +32 .* free +$MNT/hpfilld/vm1$"
expect_in "$WORK/out" "^vm2 +2M +node[0-9,]+ +8 "
expect_rc 0 "$HPFILLD" --release vm1 vm2
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^Reservations: none$"

echo PASS
