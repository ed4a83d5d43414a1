#!/bin/bash
# SPDX-License-Identifier: MIT
# Four NUMA nodes in a VM (three with a CPU, one memory-only): an explicit per-node plan, a total
# spread evenly over the nodes, and --dry-run all leave each node's 2 MiB pool as planned.
. "$(dirname "$0")/lib.sh"

vm_guest <<'EOF'
expect_topology 0-3 0-2
for n in 0 1 2; do expect_eq "node$n/cpulist" "$(cat $NODES/node$n/cpulist)" "$n"; done
expect_eq "node3/cpulist" "$(cat $NODES/node3/cpulist)" ""

# an explicit plan, in bytes; the plan shown by --dry-run first, then the fill
expect_rc 0 $HPFILLD --once --dry-run --pool 2M:node0=64M,node1=128M,node2=32M,node3=96M
for t in 0:32 1:64 2:16 3:48; do
        expect_in $OUT "^2M +node${t%:*} +0 +${t#*:} +\+${t#*:} +(sysfs +1|auto +[0-9]+) +grow$"
done
expect_counts 2048 0 0 0 0
expect_rc 0 $HPFILLD --once --pool 2M:node0=64M,node1=128M,node2=32M,node3=96M
# auto measures: in a TCG guest either method may come out faster
expect_in $OUT "^2M pool: 160/160 pages on 4 nodes in [0-9.]+ m?s \((sysfs, 1 writer|fault, [0-9]+ threads?/node(, auto)?)\)(, auto: .*)?$"
expect_in $OUT "^  node3: 0 -> 48 \(target 48\)$"
expect_counts 2048 32 64 16 48
expect_eq "global nr_hugepages" "$(cat $HP/hugepages-2048kB/nr_hugepages)" 160

# a total, spread evenly over the four nodes with memory
set_counts 2048 0 0 0 0
expect_rc 0 $HPFILLD --once --pool 2M:400
expect_in $OUT "^2M pool: 400/400 pages on 4 nodes"
expect_counts 2048 100 100 100 100

# a total that does not divide: the remainder goes to the lowest nodes, one page each
expect_rc 0 $HPFILLD --once --pool 2M:402
expect_counts 2048 101 101 100 100

# --dry-run: the plan shows the pools at target and changes nothing
expect_rc 0 $HPFILLD --once --dry-run --pool 2M:402
for n in 0 1 2 3; do expect_in $OUT "^2M +node$n .* at target$"; done
expect_rc 0 $HPFILLD --once --dry-run --pool 2M:800
expect_in $OUT "^2M +node3 +100 +200 +\+100 "
expect_counts 2048 101 101 100 100
# no configuration file and no --pool: nothing to do, nothing changed
expect_rc 0 $HPFILLD --once --dry-run
expect_counts 2048 101 101 100 100

# a memory-only node alone
set_counts 2048 0 0 0 0
expect_rc 0 $HPFILLD --once --pool 2M:node3=10
expect_counts 2048 0 0 0 10
echo "per-node: all checks passed"
EOF

vm_run 1536:0 1024:1 1024:2 1024
vm_expect_log "^topology: has_memory 0-3, has_cpu 0-2$"
vm_expect_log "^  node3: 100 2048kB pages \(want 100\)$"
vm_expect_log "^per-node: all checks passed$"
echo PASS
