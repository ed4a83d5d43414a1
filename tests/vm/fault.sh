#!/bin/bash
# SPDX-License-Identifier: MIT
# The fault method on four NUMA nodes in a VM (one memory-only): pages land on the planned nodes
# only, with no surplus left and nr_overcommit_hugepages put back; a node asked for all of its
# memory the budget allows, with a tmpfs file taking part of it, comes back short (exit 3), again
# with nothing left behind.
. "$(dirname "$0")/lib.sh"

vm_guest <<'EOF'
G=$HP/hugepages-2048kB
expect_topology 0-3 0-2

# two workers per node, node3 (no CPUs) faulted from a node that has some
expect_eq nr_overcommit_hugepages "$(cat $G/nr_overcommit_hugepages)" 0
expect_rc 0 $HPFILLD --once --mode fault --threads-per-node 2 --pool 2M:node0=64M,node1=64M,node3=64M
expect_in $OUT "^2M pool: 96/96 pages on 3 nodes in [0-9.]+ m?s \(fault, 2 threads/node\)$"
expect_counts 2048 32 32 0 32
expect_eq "free_hugepages" "$(cat $G/free_hugepages)" 96
expect_clean 2048 0

# node1 asked for as much as the memory budget allows (hpfilld(8), MEMORY BUDGET) while 400 MiB
# of it hold a tmpfs file that cannot be swapped or moved off the node: more than it can give;
# an overcommit set by the admin is put back as found
set_counts 2048 0 0 0 0
echo 7 >$G/nr_overcommit_hugepages
total_kb=$(sed -n 's/^Node 1 MemTotal: *\([0-9]*\) kB$/\1/p' $NODES/node1/meminfo)
all_kb=0
for f in $NODES/node*/meminfo; do
        all_kb=$((all_kb + $(sed -n 's/^Node [0-9]* MemTotal: *\([0-9]*\) kB$/\1/p' $f)))
done
min_free=$(cat /proc/sys/vm/min_free_kbytes)
headroom=$((2 * (min_free * 1024 * total_kb / all_kb) + total_kb * 1024 / 100 * 2))
[ "$headroom" -ge $((256 << 20)) ] || headroom=$((2 * (min_free * 1024 * total_kb / all_kb) + (256 << 20)))
want=$(((total_kb * 1024 - headroom) / (2 << 20)))
echo "node1: MemTotal $total_kb kB, asking for $want 2 MiB pages"
[ "$want" -gt 300 ] || fail "node1 MemTotal is $total_kb kB: not the 1 GiB node the test set up"
mkdir -p /tmp/node1 && mount -t tmpfs -o mpol=bind:1 none /tmp/node1 || fail "no tmpfs bound to node1"
dd if=/dev/zero of=/tmp/node1/fill bs=1M count=400 2>/dev/null || fail "cannot fill 400 MiB of node1"
# one page more than the budget: refused, nothing changed
expect_rc 2 $HPFILLD --once --mode fault --pool 2M:node1=$((want + 1))
expect_in $ERR "^hpfilld: node1: [0-9]+ MiB of huge pages planned"
expect_rc 3 $HPFILLD --once --mode fault --threads-per-node 2 --pool 2M:node1=$want
got=$(node_nr 1 2048)
expect_in $OUT "^2M pool: $got/$want pages on 1 node in [0-9.]+ m?s \(fault, 2 threads/node\)"
expect_in $OUT "^  node1: 0 -> $got \(target $want, short\)$"
echo "node1: got $got of $want pages ($((got * 100 / want))%)"
[ "$got" -gt $((want / 2)) ] || fail "node1 got only $got of $want pages"
expect_counts 2048 0 "$got" 0 0
expect_clean 2048 7
rm /tmp/node1/fill && umount /tmp/node1
echo "fault: all checks passed"
EOF

vm_run 1536:0 1024:1 1024:2 1024
vm_expect_log "^topology: has_memory 0-3, has_cpu 0-2$"
vm_expect_log "^  \| 2M pool: 96/96 pages on 3 nodes .*\(fault, 2 threads/node\)$"
vm_expect_log "^  \|   node1: 0 -> [0-9]+ \(target [0-9]+, short\)$"
vm_expect_log "^fault: all checks passed$"
echo PASS
