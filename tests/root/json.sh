#!/bin/bash
# SPDX-License-Identifier: MIT
# The JSON of `status --json`, `--once --json` (the report) and `--dry-run --json` (the plan),
# as this kernel makes them: each validated against doc/hpfilld-json.schema.json, and its
# numbers checked against the pools; a document with a number as a string is refused.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

SCHEMA="$SOURCE_ROOT/doc/hpfilld-json.schema.json"
validate() { python3 "$SOURCE_ROOT/tests/json-validate.py" "$SCHEMA" "$@"; }
mount_huge

pool2m_set 0
base=$(node_nr "$first" 2048)
T=$((base + 40))

# the plan: nothing changes
expect_rc 0 "$HPFILLD" --dry-run --json --pool "2M:node$first=$T" --reserve "r1:2M:8@$first"
cp "$WORK/out" "$WORK/plan.json"
validate plan "$WORK/plan.json" || fail "the plan does not match the schema"
[ "$(node_nr "$first" 2048)" = "$base" ] || fail "the dry run changed the pool"
python3 - "$WORK/plan.json" "$first" "$T" "$base" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); first, T, base = map(int, sys.argv[2:5])
assert d["kind"] == "plan" and d["exit_status"] == 0 and d["exit_meaning"] == "ok", d
n = [n for n in d["plan"]["pools"][0]["nodes"] if n["node"] == first][0]
assert n == {"node": first, "now": base, "target": T, "surplus": 0, "promote": 0, "action": "grow"}, n
r = d["plan"]["reservations"][0]
assert r["name"] == "r1" and r["target"] == 8 and r["mode"] == "0600" and r["nodes"] == [{"node": first, "target": 8}], r
PY

# the report: only JSON on stdout, its numbers the kernel's
expect_rc 0 "$HPFILLD" --once --json --pool "2M:node$first=$T" --reserve "r1:2M:8@$first"
cp "$WORK/out" "$WORK/report.json"
validate report "$WORK/report.json" || fail "the report does not match the schema"
python3 - "$WORK/report.json" "$first" "$T" "$(node_nr "$first" 2048)" "$MNT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); first, T, now = map(int, sys.argv[2:5]); mnt = sys.argv[5]
assert d["kind"] == "report" and d["exit_status"] == 0 and d["exit_meaning"] == "ok" and d["next_boot"] is None, d
p = d["pools"][0]
assert p["page_size"] == 2 << 20 and p["target"] == T and p["obtained"] == T and p["met"] is True, p
assert [n["after"] for n in p["nodes"] if n["node"] == first] == [now] == [T], (p, now)
r = d["reservations"][0]
assert r["name"] == "r1" and r["state"] == "ready" and r["pages"] == 8 and r["path"] == mnt + "/hpfilld/r1", r
PY
[ -f "$MNT/hpfilld/r1" ] || fail "no reservation file"

# status, with the reservation
expect_rc 0 "$HPFILLD" status --json
cp "$WORK/out" "$WORK/status.json"
validate status "$WORK/status.json" || fail "status --json does not match the schema"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert [r["name"] for r in d["reservations"]] == ["r1"], d' \
        "$WORK/status.json" || fail "status --json does not list r1"

# nothing configured: still a document
printf '' >"$WORK/empty.conf"
expect_rc 0 "$HPFILLD" --once --json --config "$WORK/empty.conf"
validate report "$WORK/out" || fail "the empty report does not match the schema"
expect_rc 0 "$HPFILLD" --dry-run --json --config "$WORK/empty.conf"
validate plan "$WORK/out" || fail "the empty plan does not match the schema"

# the schema bites: a number as a string, an unknown field, a state not documented
sed 's/"obtained": \([0-9]*\)/"obtained": "\1"/' "$WORK/report.json" >"$WORK/bad1.json"
sed 's/"kind": "report"/"kind": "report", "summary": "2M pool: ..."/' "$WORK/report.json" >"$WORK/bad2.json"
sed 's/"state": "ready"/"state": "done"/' "$WORK/report.json" >"$WORK/bad3.json"
for b in bad1 bad2 bad3; do
        ! cmp -s "$WORK/$b.json" "$WORK/report.json" || fail "$b: the edit did not apply"
        if validate report "$WORK/$b.json" 2>"$WORK/err"; then fail "$b.json was accepted"; fi
done

# --json without --once or --dry-run is a usage error
expect_rc 2 "$HPFILLD" --json --pool "2M:node$first=$T"
expect_in "$WORK/err" "--json goes with --once \(the report\) or --dry-run \(the plan\)"
expect_rc 0 "$HPFILLD" --release r1

# a mount path that is not UTF-8 (a file name is any bytes): still valid JSON, U+FFFD in its place
umount "$MNT"
BAD="$WORK/m$(printf '\377')x"
mkdir "$BAD"
mount -t hugetlbfs -o pagesize=2M none "$BAD"
EXTRA_CLEANUP="rm -rf '$BAD/hpfilld'; umount '$BAD'"
expect_rc 0 "$HPFILLD" --once --json --pool "2M:node$first=$T" --reserve "r2:2M:2@$first"
cp "$WORK/out" "$WORK/bad-path.json"
expect_rc 0 "$HPFILLD" status --json
cp "$WORK/out" "$WORK/bad-path-status.json"
validate report "$WORK/bad-path.json" || fail "the report with a non-UTF-8 path does not match the schema"
validate status "$WORK/bad-path-status.json" || fail "status --json with a non-UTF-8 path does not match the schema"
for f in bad-path bad-path-status; do
        python3 - "$WORK/$f.json" "$WORK" <<'PY' || fail "$f.json: the path is not shown with U+FFFD"
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
assert [r["path"] for r in d["reservations"]] == [sys.argv[2] + "/m\ufffdx/hpfilld/r2"], d["reservations"]
PY
done
expect_rc 0 "$HPFILLD" --release r2
echo PASS
