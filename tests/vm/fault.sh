#!/bin/bash
# SPDX-License-Identifier: MIT
# The fault method on four NUMA nodes in a VM (one memory-only): pages land on the planned nodes
# only, with no surplus left and nr_overcommit_hugepages put back; a node asked for all of its
# memory comes back short (exit 3), again with nothing left behind.
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

# node1 asked for all of its memory (MemTotal, whole pages): more than it can ever give, but not
# more than hpfilld accepts; an overcommit set by the admin is put back as found
set_counts 2048 0 0 0 0
echo 7 >$G/nr_overcommit_hugepages
total_kb=$(sed -n 's/^Node 1 MemTotal: *\([0-9]*\) kB$/\1/p' $NODES/node1/meminfo)
want=$((total_kb / 2048))
echo "node1: MemTotal $total_kb kB, asking for $want 2 MiB pages"
[ "$want" -gt 400 ] || fail "node1 MemTotal is $total_kb kB: not the 1 GiB node the test set up"
expect_rc 3 $HPFILLD --once --mode fault --threads-per-node 2 --pool 2M:node1=$want
got=$(node_nr 1 2048)
expect_in $OUT "^2M pool: $got/$want pages on 1 node in [0-9.]+ m?s \(fault, 2 threads/node\)"
expect_in $OUT "^  node1: 0 -> $got \(target $want, short\)$"
echo "node1: got $got of $want pages ($((got * 100 / want))%)"
[ "$got" -gt $((want / 2)) ] || fail "node1 got only $got of $want pages"
expect_counts 2048 0 "$got" 0 0
expect_clean 2048 7
echo "fault: all checks passed"
EOF

vm_run 1536:0 1024:1 1024:2 1024
vm_expect_log "^topology: has_memory 0-3, has_cpu 0-2$"
vm_expect_log "^  \| 2M pool: 96/96 pages on 3 nodes .*\(fault, 2 threads/node\)$"
vm_expect_log "^  \|   node1: 0 -> [0-9]+ \(target [0-9]+, short\)$"
vm_expect_log "^fault: all checks passed$"
echo PASS
