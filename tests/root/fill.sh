#!/bin/bash
# SPDX-License-Identifier: MIT
# Real fills of the 2 MiB pool on this kernel: totals, per-node lists, percentages, larger pools, --shrink,
# --drop-caches where it is not needed.
. "$(dirname "$0")/lib.sh"

n_nodes=$(echo $nodes | wc -w)
pool2m_set 0
# the targets are on top of the pages others hold (BASE_ALL, BASE: lib.sh)
T=$((BASE_ALL + 100))
half=$((BASE_ALL + 50 * n_nodes))

# 200 MiB spread over the nodes with memory
expect_rc 0 "$HPFILLD" --once --pool "2M:$((T * 2))M"
expect_in "$WORK/out" "^2M pool: $T/$T pages on $n_nodes nodes? in [0-9]+ ms \(sysfs, 1 writer\)(, auto: .*)?$"
[ "$(pool2m_nr)" = $T ] || fail "nr_hugepages is $(pool2m_nr), expected $T"
expect_in "$WORK/out" "^  node$first: $BASE -> [0-9]+ \(target [0-9]+\)$"

# again: nothing to do, still a report, still 0
expect_rc 0 "$HPFILLD" --once --pool 2M:$T
[ "$(pool2m_nr)" = $T ] || fail "a second run changed the pool"
expect_in "$WORK/out" "$T/$T pages"

# a smaller target leaves a larger pool alone...
expect_rc 0 "$HPFILLD" --once --pool 2M:$half
[ "$(pool2m_nr)" = $T ] || fail "a larger pool was shrunk without --shrink"
expect_in "$WORK/out" "larger than target, left alone"
# the pool line tells the pool as it is, not "50/50"
expect_in "$WORK/out" "^2M pool: $T pages, above the target of $half, left alone, on $n_nodes nodes? in "
# ...unless asked
expect_rc 0 "$HPFILLD" --once --shrink --pool 2M:$half
[ "$(pool2m_nr)" = $half ] || fail "--shrink left $(pool2m_nr) pages"

# --shrink gives back the run's own pages only (hpfilld(8), OWNERS): pages somebody added
# without hpfilld (an administrator's echo) are nobody's, and stay
expect_rc 0 "$HPFILLD" give-back
[ "$(pool2m_nr)" = "$BASE_ALL" ] || fail "give-back left $(pool2m_nr) pages, expected the $BASE_ALL others hold"
pool2m_set 30
expect_rc 0 "$HPFILLD" --once --shrink --pool 2M:0
expect_in "$WORK/out" "^2M pool: $((BASE_ALL + 30)) pages, above the target of 0, left alone, on "
[ "$(pool2m_nr)" = $((BASE_ALL + 30)) ] || fail "--shrink gave back pages hpfilld did not add: $(pool2m_nr) left of $((BASE_ALL + 30))"

# zero gives the run's own free pages back, with --shrink only; without it nothing changes. The
# pages others hold stay, persistent (a fill gives back no page of theirs, in use or not)
for zero in 0 0% 0G "node$first=0"; do
        pool2m_set 0
        expect_rc 0 "$HPFILLD" --once --pool "2M:$((BASE_ALL + 30))"
        before=$(snapshot)
        expect_rc 2 "$HPFILLD" --once --pool "2M:$zero"
        expect_in "$WORK/err" "--pool 2M:$zero: a target of zero gives the pool's free pages back: add --shrink"
        [ "$(snapshot)" = "$before" ] || fail "2M:$zero without --shrink changed the pools"
        expect_rc 0 "$HPFILLD" --once --shrink --pool "2M:$zero"
        expect_in "$WORK/out" "^2M pool: $BASE_ALL/$BASE_ALL pages? on"
        expect_in "$WORK/out" "^  node$first: [0-9]+ -> $BASE "
        [ "$(node_nr "$first" 2048)" = "$BASE" ] || fail "--shrink --pool 2M:$zero left $(node_nr "$first" 2048) pages on node$first, expected the $BASE others hold"
        [ "$(node_persistent "$first")" = "$BASE" ] || fail "--shrink --pool 2M:$zero left $(node_persistent "$first") persistent pages on node$first, expected the $BASE others hold"
done

# --drop-caches only when a pool falls short: a fill that meets its target drops nothing
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
drops="$(vmstat drop_pagecache) $(vmstat drop_slab)"
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --drop-caches --pool "2M:$(((BASE_ALL + 32) * 2))M"
expect_in "$WORK/out" "^2M pool: $((BASE_ALL + 32))/$((BASE_ALL + 32)) pages on $n_nodes nodes? in [0-9]+ ms \(sysfs, 1 writer\)(, auto: .*)?$"
[ "$(vmstat drop_pagecache) $(vmstat drop_slab)" = "$drops" ] ||
        fail "--drop-caches dropped caches on a fill that met its target ($drops -> $(vmstat drop_pagecache) $(vmstat drop_slab))"

# per node
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$(((BASE + 32) * 2))M"
[ "$(node_nr "$first" 2048)" = $((BASE + 32)) ] || fail "node$first holds $(node_nr "$first" 2048), expected $((BASE + 32))"

# a share of the node's memory
pool2m_set 0
# (as the machine counts it: where the nodes' meminfo lag /proc/meminfo by more than 1%, the node's
# count and its share of what no node counts yet; hpfilld(8), MEMORY BUDGET)
mem_kb=$(awk '/MemTotal/ { print $4 }' "$NODES/node$first/meminfo")
nodes_kb=0
for n in $(mem_nodes); do nodes_kb=$((nodes_kb + $(awk '/MemTotal/ { print $4 }' "$NODES/node$n/meminfo"))); done
machine_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
if [ $((machine_kb - nodes_kb)) -gt $((nodes_kb / 100)) ] && [ "$(echo $nodes | wc -w)" = 1 ]; then
        # the only node with memory: what no node counts is its own
        mem_kb=$((mem_kb + machine_kb - nodes_kb))
elif [ $((machine_kb - nodes_kb)) -gt $((nodes_kb / 100)) ]; then
        # its present memory where /proc/zoneinfo says (its zones' present pages), else its share
        # of what is not counted
        present_kb=$(awk -v n="$first" -v kb=$(($(getconf PAGESIZE) / 1024)) \
                '/^Node / { node = $2; sub(",", "", node) } node == n && $1 == "present" { p += $2 } END { print p * kb }' /proc/zoneinfo)
        if [ "${present_kb:-0}" -gt 0 ]; then
                [ "$present_kb" -gt "$mem_kb" ] && mem_kb=$present_kb
        else
                mem_kb=$((mem_kb + (machine_kb - nodes_kb) * mem_kb / nodes_kb))
        fi
fi
want=$((mem_kb * 1 / 100 / 2048))
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$want" --dry-run
expect_rc 0 "$HPFILLD" --once --pool 2M:1%
# (a pool others hold more of is left alone)
[ "$BASE" -le "$want" ] || want=$BASE
[ "$(node_nr "$first" 2048)" = "$want" ] || fail "1% gave $(node_nr "$first" 2048) pages, expected $want"

# pages in use are never taken: 20 pages of a one-off run, 10 of them mapped, shrunk to 1: the
# free ones leave, those in use stay persistent and the run's (no surplus page made of them:
# hpfilld(8), --shrink), for a later --shrink once they are free
pool2m_set 0
expect_rc 0 "$HPFILLD" give-back
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$((BASE + 20))"
if command -v python3 >/dev/null; then
        FIRST=$first B=$BASE B_ALL=$BASE_ALL B_FREE=$BASE_FREE python3 - "$HPFILLD" "$WORK" <<'PY'
import mmap, os, subprocess, sys
G = "/sys/kernel/mm/hugepages/hugepages-2048kB/"
MAP_HUGETLB = 0x40000
# what others hold: pages in use, free ones they reserved (lib.sh)
b, b_all, b_free = int(os.environ["B"]), int(os.environ["B_ALL"]), int(os.environ["B_FREE"])
shrink = [sys.argv[1], "--once", "--shrink", "--min", "1", "--pool", "2M:node%s=%d" % (os.environ.get("FIRST", "0"), b + 1)]
def count(f):
    return int(open(G + f).read())
m = mmap.mmap(-1, 10 * 2 * 1024 * 1024, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB)
for i in range(10):
    m[i * 2 * 1024 * 1024] = 1  # fault each page in
r = subprocess.run(shrink, capture_output=True, text=True)
print(r.stdout, r.stderr)
assert r.returncode == 0, r.returncode
# the 10 free pages went, the 10 in use stay, persistent
assert count("nr_hugepages") == b_all + 10 and count("free_hugepages") == b_free, (count("nr_hugepages"), count("free_hugepages"))
assert count("surplus_hugepages") == 0, count("surplus_hugepages")
assert "%d -> %d" % (b + 20, b + 10) in r.stdout, r.stdout
m[0] = 2  # still ours
m.close()
# freed: they stay in the pool, free, the run's still; the next --shrink gives back all but 1
assert count("nr_hugepages") == b_all + 10 and count("free_hugepages") == b_free + 10, (count("nr_hugepages"), count("free_hugepages"))
r = subprocess.run(shrink, capture_output=True, text=True)
print(r.stdout, r.stderr)
assert r.returncode == 0, r.returncode
assert count("nr_hugepages") == b_all + 1 and count("surplus_hugepages") == 0, (count("nr_hugepages"), count("surplus_hugepages"))
assert "%d -> %d (target %d)" % (b + 10, b + 1, b + 1) in r.stdout, r.stdout
PY
fi
echo "PASS"
