#!/bin/bash
# SPDX-License-Identifier: MIT
# A 1 GiB page at runtime in a VM with two NUMA nodes: node1 (4 GiB, with a CPU) gets one, node0
# (the kernel's, where contiguous gigabytes are rare) none.
. "$(dirname "$0")/lib.sh"

vm_guest <<'EOF'
expect_topology 0-1 0-1
# -cpu max has pdpe1gb: a kernel without 1 GiB pages here is a failure, not a skip
[ -d $HP/hugepages-1048576kB ] || fail "no $HP/hugepages-1048576kB: no 1 GiB pages (pdpe1gb?)"
[ -d "$(dirname "$(node_file 1 1048576 nr_hugepages)")" ] || fail "node1 has no 1 GiB pool"
expect_counts 1048576 0 0
expect_rc 0 $HPFILLD --once --pool 1G:node1=1
expect_in $OUT "^1G pool: 1/1 page on 1 node in [0-9.]+ m?s \(sysfs, 1 writer\)"
expect_in $OUT "^  node1: 0 -> 1 \(target 1\)$"
expect_counts 1048576 0 1
expect_eq "global 1G nr_hugepages" "$(cat $HP/hugepages-1048576kB/nr_hugepages)" 1
echo "gigantic: all checks passed"
EOF

vm_run 1536:0 4096:1
vm_expect_log "^topology: has_memory 0-1, has_cpu 0-1$"
vm_expect_log "^  node1: 1 1048576kB pages \(want 1\)$"
vm_expect_log "^gigantic: all checks passed$"
echo PASS
