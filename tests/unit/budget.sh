#!/bin/sh
# SPDX-License-Identifier: MIT
# The memory budget is never stricter than the kernel: on a fake machine whose node counts lag
# /proc/meminfo (memory initialised lazily: node0 says 6 GiB, the machine 24), a plan of 8 GiB
# passes, with a warning naming both counts (one of 1 GiB, which the node's count holds, without);
# one larger than the machine is still refused; with
# the counts in agreement the node's own is the limit, as before.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
work_dir
plan() {
        rc=0
        "$HPFILLD" --once --dry-run --root "$work/m" --pool "$1" >"$work/out" 2>"$work/err" || rc=$?
}

fake_machine "$work/m" 1 6144 2048
printf 'MemTotal:       25165824 kB\nMemFree:        24000000 kB\n' >"$work/m/proc/meminfo"
plan 2M:8G
[ "$rc" = 0 ] || bad "8 GiB on the lagging machine: exit $rc: $(cat "$work/err")"
want="hpfilld: The nodes' meminfo count 6144 MiB of memory, $work/m/proc/meminfo 24576 MiB (memory initialised lazily?): the memory budget takes the 18432 MiB no node counts yet as any node's and holds the plan to the machine's"
[ "$(cat "$work/err")" = "$want" ] || bad "the warning: '$(cat "$work/err")'"
grep -qE '^2M +node0 +0 +4096 +\+4096 ' "$work/out" || bad "not 4096 pages planned: $(cat "$work/out")"
echo "ok: 8 GiB on a node counting 6 of the machine's 24: $(cat "$work/err")"

# a plan that fits the node's own count: nothing to say
plan 2M:1G
[ "$rc" = 0 ] && [ ! -s "$work/err" ] || bad "1 GiB on the lagging machine: exit $rc, said '$(cat "$work/err")'"
echo "ok: 1 GiB on the lagging machine planned without a word"

plan 2M:24G
[ "$rc" = 2 ] || bad "24 GiB on the lagging machine: exit $rc, expected 2"
grep -qF "node0: 24576 MiB of huge pages planned (2M 24576 MiB (--pool 2M:24G)), more than the 23952 MiB left of its 24576 MiB of memory after 623 MiB of headroom" "$work/err" ||
        bad "24 GiB: $(cat "$work/err")"
echo "ok: 24 GiB refused: $(tail -n 1 "$work/err")"

# the counts in agreement: no warning, the node's memory is the limit
fake_machine "$work/m" 1 6144 2048
plan 2M:8G
[ "$rc" = 2 ] && grep -qF "node0: 4096 2M pages are more than its memory" "$work/err" ||
        bad "8 GiB on a machine of 6: exit $rc: $(cat "$work/err")"
grep -q "meminfo count" "$work/err" && bad "a warning with the counts in agreement: $(cat "$work/err")"
echo "ok: 8 GiB on a machine of 6 refused: $(cat "$work/err")"
passed
