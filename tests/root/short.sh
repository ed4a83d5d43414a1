#!/bin/bash
# SPDX-License-Identifier: MIT
# A pool that comes back short on this kernel: 1 GiB pages up to the node's memory budget are
# more than runtime allocation finds contiguous here. Exit 3, the short node and the retry
# rounds in the report, the warning, the boot advice, and the record `hpfilld status` shows.
. "$(dirname "$0")/lib.sh"

G1=$HP/hugepages-1048576kB
[ -d "$G1" ] || { echo "SKIP: this kernel offers no 1 GiB pages"; exit 77; }
# the 1 GiB pages the node holds (others': a 1 GiB page let go might not come back)
N1=$NODES/node$first/hugepages/hugepages-1048576kB/nr_hugepages
b=$(cat "$N1")

# the most the budget allows on the node (hpfilld(8), MEMORY BUDGET)
mem=$(($(awk '/MemTotal/ { print $4 }' "$NODES/node$first/meminfo") * 1024))
all=0
for n in $nodes; do all=$((all + $(awk '/MemTotal/ { print $4 }' "$NODES/node$n/meminfo") * 1024)); done
share=$(($(cat /proc/sys/vm/min_free_kbytes) * 1024 * (mem / 1024) / (all / 1024)))
rest=$((mem / 100 * 2))
[ "$rest" -ge $((256 << 20)) ] || rest=$((256 << 20))
# what the node's other pools hold stays planned (a fill keeps pages it does not shrink): the 1G
# pages get what is left beside them
others=0
for d in "$NODES/node$first"/hugepages/hugepages-*kB; do
        kb=${d##*-}
        kb=${kb%kB}
        [ "$kb" = 1048576 ] && continue
        others=$((others + $(cat "$d/nr_hugepages") * kb * 1024))
done
want=$(((mem - 2 * share - rest - others) >> 30))
[ "$want" -ge $((b + 2)) ] || { echo "SKIP: node$first has room for $want 1 GiB pages, $b of them there"; exit 77; }

fill_1g "$first" "$want"
echo "$b" >"$N1" # the memory back before anything else
if [ "$rc" = 0 ]; then echo "SKIP: the kernel found all $want 1 GiB pages"; exit 77; fi
[ "$rc" = 3 ] || fail "exit $rc, expected 3"
[ "$got" -lt "$want" ] || fail "exit 3 with $got of $want pages"
expect_in "$WORK/out" "^1G pool: $got/$want pages on 1 node in [0-9.]+ m?s \(sysfs, 1 writer\), [0-9]+ retry rounds?"
expect_in "$WORK/out" "^  node$first: $b -> $got \(target $want, short\)$"
expect_in "$WORK/err" "1G pool: $got of $want pages, below the minimum of 100% \(MinPercent=, --min\)"
expect_in "$WORK/out" "^To have these pages at the next boot, add to the kernel command line:$"
expect_in "$WORK/out" "^  hugepagesz=1G hugepages=$first:$want$"
expect_in "$WORK/out" "^  hpfilld.pool=1G:node$first=$want$"
expect_in "$WORK/out" "^or keep a CMA area for the gigantic pages, which hpfilld can then fill at any time$"
expect_in "$WORK/out" "^  hugetlb_cma=$first:${want}G$"
# the record of the last fill says it too
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "exit status 3$"
expect_in "$WORK/out" "^  exit status 3: a pool came back short of its minimum \(MinPercent=, --min\)$"
expect_in "$WORK/out" "^1G +node$first +$want +[0-9]+ +[0-9]+\.[0-9]{2} "
expect_in "$WORK/out" "hugepagesz=1G hugepages=$first:$want"
echo PASS
