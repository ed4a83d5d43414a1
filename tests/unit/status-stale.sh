#!/bin/sh
# SPDX-License-Identifier: MIT
# `hpfilld status` only reads: a setting a command that ended left raised (a `setting` line of
# run/hpfilld/state) is said in every format, as stale where it still holds what was set (the
# next command that changes a pool puts it back) and as changed where someone changed it since
# (left as it is), and neither the setting nor the state is changed (a status that recovered
# would put 3 back and drop the line). The next command that changes a pool does: puts back the
# stale one, leaves the changed one, drops both lines, and says so.
set -eu
: "${HPFILLD:?}"
. "$(dirname "$0")/fake-tree.sh"
need_fake_kernel
work_dir

t=$work/t
fake_machine "$t" 1 4096 2048 1048576
fake_pools "$t"
oc=sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
oc1g=sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages
state=$t/run/hpfilld/state
echo 63 >"$t/$oc"
echo 50 >"$t/$oc1g"
mkdir -p "$t/run/hpfilld"
chmod 755 "$t/run" "$t/run/hpfilld"
# what a fill killed while it had them raised leaves: 2M's still 63, 1G's changed since (7 -> 9, 50 now)
printf 'hpfilld-state 1\nseq 0\nsetting %s 3 63\nsetting %s 7 9\nend\n' "$oc" "$oc1g" >"$state"
cp "$state" "$work/state"

untouched() {
        [ "$(cat "$t/$oc") $(cat "$t/$oc1g")" = "63 50" ] || bad "status --format=$1 changed the settings to $(cat "$t/$oc") $(cat "$t/$oc1g")"
        cmp -s "$state" "$work/state" || bad "status --format=$1 changed the state: $(cat "$state")"
}
for fmt in text json prometheus; do
        rc=0
        "$HPFILLD" status --root "$t" --format=$fmt >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = 0 ] || bad "status --format=$fmt exited $rc: $(cat "$work/err")"
        untouched $fmt
        case $fmt in
        text)
                grep -qxF "/$oc: raised from 3 to 63 by a command that ended, 63 now: the next command that changes a pool puts it back" "$work/out" ||
                        bad "status does not say the setting is stale: $(cat "$work/out")"
                grep -qxF "/$oc1g: raised from 7 to 9 by a command that ended, 50 now: changed since, left as it is" "$work/out" ||
                        bad "status does not say the setting was changed: $(cat "$work/out")"
                ;;
        json)
                python3 - "$work/out" "$oc" "$oc1g" <<'PY' || bad "status --json's journal: $(cat "$work/out")"
import json, sys
j = json.load(open(sys.argv[1]))["journal"]
got = sorted((e["entry"], e["path"], e["result"], e["found"], e["set"], e["now"]) for e in j)
assert got == sorted([("setting", sys.argv[2], "stale", 3, 63, 63), ("setting", sys.argv[3], "changed", 7, 9, 50)]), got
PY
                ;;
        prometheus)
                grep -qxF "hpfilld_journal_entry{entry=\"setting\",path=\"/$oc\",result=\"stale\"} 1" "$work/out" ||
                        bad "status --format=prometheus does not say the setting is stale: $(cat "$work/out")"
                grep -qxF "hpfilld_journal_entry{entry=\"setting\",path=\"/$oc1g\",result=\"changed\"} 1" "$work/out" ||
                        bad "status --format=prometheus does not say the setting was changed: $(cat "$work/out")"
                ;;
        esac
done
echo "ok: status says the settings a command left raised, and changes nothing"

# a dry run changes no pool: it leaves them too
rc=0
"$HPFILLD" --once --dry-run --mode sysfs --pool 2M:node0=2 --root "$t" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 0 ] || bad "--dry-run exited $rc: $(cat "$work/err")"
untouched "--dry-run"

# the next command that changes a pool: the stale setting put back, the changed one left, both
# lines gone, each said
rc=0
"$HPFILLD" --once --mode sysfs --pool 2M:node0=2 --root "$t" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 0 ] || bad "the next fill exited $rc: $(cat "$work/err")"
[ "$(cat "$t/$oc")" = 3 ] || bad "the stale setting not put back: $(cat "$t/$oc")"
[ "$(cat "$t/$oc1g")" = 50 ] || bad "the changed setting not left as it is: $(cat "$t/$oc1g")"
grep -q '^setting ' "$state" && bad "settings left in the state: $(cat "$state")"
grep -qF "$t/$oc put back to 3 (a command that ended had raised it to 63)" "$work/err" ||
        bad "the setting put back is not said: $(cat "$work/err")"
grep -qF "$t/$oc1g left as it is: a command that ended had raised it from 7 to 9, and it has been changed since" "$work/err" ||
        bad "the setting left is not said: $(cat "$work/err")"
"$HPFILLD" status --root "$t" >"$work/out" 2>"$work/err"
grep -q "by a command that ended" "$work/out" && bad "status after the fill: $(cat "$work/out")"
echo "ok: the next fill puts back what is still raised, leaves what was changed"
passed
