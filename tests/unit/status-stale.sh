#!/bin/sh
# SPDX-License-Identifier: MIT
# `hpfilld status` only reads: a valid journal entry whose owner is gone (a stale one, which the
# next fill puts back) is said as stale in every format, and neither the setting it names nor
# the entry itself is changed (a status that recovered would put 3 back and remove the entry).
set -eu
: "${HPFILLD:?}"
. "$(dirname "$0")/fake-tree.sh"
work_dir

t=$work/t
fake_machine "$t" 1 4096 2048
oc=sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
entry=$t/run/hpfilld/changed.hugepages-2048kB.nr_overcommit_hugepages
echo 63 >"$t/$oc"
mkdir -p "$t/run/hpfilld"
chmod 755 "$t/run" "$t/run/hpfilld"
# pid 4242 has no /proc/4242 in the tree: gone
echo "path=$oc found=3 set=63 pid=4242 start=1" >"$entry"
cp "$entry" "$work/entry"

untouched() {
        [ "$(cat "$t/$oc")" = 63 ] || bad "status --format=$1 changed $oc to $(cat "$t/$oc")"
        cmp -s "$entry" "$work/entry" || bad "status --format=$1 changed or removed the entry"
}
for fmt in text json prometheus; do
        rc=0
        "$HPFILLD" status --root "$t" --format=$fmt >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = 0 ] || bad "status --format=$fmt exited $rc: $(cat "$work/err")"
        untouched $fmt
        case $fmt in
        text) want="^$t/$oc is still 63: pid 4242, which is gone, raised it from 3 and did not put it back; the next fill puts it back" ;;
        json) want='"entry": *"changed.hugepages-2048kB.nr_overcommit_hugepages".*"result": *"stale"' ;;
        prometheus) want='^hpfilld_journal_entry{entry="changed.hugepages-2048kB.nr_overcommit_hugepages",path="/'"$oc"'",result="stale"} 1$' ;;
        esac
        if [ $fmt = json ]; then
                tr -d '\n' <"$work/out" >"$work/flat"
                grep -q "$want" "$work/flat" || bad "status --json does not say the entry is stale: $(cat "$work/out")"
        else
                grep -q "$want" "$work/out" || bad "status --format=$fmt does not say the entry is stale: $(cat "$work/out")"
        fi
done
passed
