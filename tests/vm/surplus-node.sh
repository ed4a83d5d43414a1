#!/bin/bash
# SPDX-License-Identifier: MIT
# Surplus pages on one node and a per-node fill of another, on Debian's 6.1 kernel: a workload
# (tests/vm/hold-surplus.c) holds 10 surplus 2 MiB pages on node0, then hpfilld fills node1 to 16
# pages with the sysfs method. Before "mm/hugetlb: fix nodes huge page allocation when there are
# surplus pages" (v6.7) the kernel counts node0's surplus pages as node1's target in a write of
# node1/nr_hugepages (set_max_huge_pages()): a plain write of 16 gives 26. The console shows what
# the plain write gave ("kernel: node1 write of 16 with 10 surplus on node0 gave N"); hpfilld must
# leave node1 at 16 and node0 with its 10 surplus pages (none persistent) either way, and they
# must leave with the workload. In a cpuset without node1, a fill or a shrink of node1 is
# refused before any write (the kernel would allocate nothing there, nor let hpfilld bind
# itself there).
#
# Environment (besides lib.sh's): HOLD_SURPLUS (the helper, static; built here with
# ${CC:-cc} -static when unset).
. "$(dirname "$0")/lib.sh"

vm_static HOLD_SURPLUS "$VM_DIR/hold-surplus.c" tests/vm/hold-surplus.c

# lib.sh's initramfs, then a second archive with the helper appended
eval "lib_$(declare -f vm_initramfs)"
vm_initramfs() {
        local extra=$WORK/initramfs-surplus
        lib_vm_initramfs
        rm -rf "$extra"
        mkdir -p "$extra"
        copy_elf "$extra" "$HOLD_SURPLUS" /bin/hold-surplus
        (cd "$extra" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >>"$WORK/initrd.gz"
}

vm_guest <<'EOF'
G=$HP/hugepages-2048kB
expect_topology 0-1 0-1
expect_counts 2048 0 0
echo 10 >$G/nr_overcommit_hugepages

# hold PAGES: the workload holds PAGES surplus pages on node0 (pid in HOLDER)
hold() {
        rm -f /tmp/holding
        hold-surplus 0 "$1" /tmp/holding &
        HOLDER=$!
        while [ ! -e /tmp/holding ]; do
                kill -0 $HOLDER 2>/dev/null || fail "hold-surplus exited before holding its pages"
                sleep 0.1
        done
        expect_eq "node0 surplus" "$(cat "$(node_file 0 2048 surplus_hugepages)")" "$1"
}
release() {
        kill $HOLDER
        wait $HOLDER || fail "hold-surplus failed"
}

# what the kernel itself does with a plain write (shown, not judged: kernels differ)
hold 10
echo 16 >"$(node_file 1 2048 nr_hugepages)"
echo "kernel: node1 write of 16 with 10 surplus on node0 gave $(node_nr 1 2048)"
# back to none with the workload gone (a node1 write of 0 would leave 10 there, for the same
# reason; the kernel's floor for any shrink counts the pages in use, surplus ones too)
release
echo 0 >$G/nr_hugepages
expect_counts 2048 0 0
hold 10

# hpfilld's per-node fill of node1, in steps of 4 pages: node1 at its target, node0 untouched
expect_rc 0 $HPFILLD --once --mode sysfs --pool 2M:node1=32M
expect_in $OUT "^2M pool: 16/16 pages"
expect_counts 2048 10 16
expect_eq "node0 surplus" "$(cat "$(node_file 0 2048 surplus_hugepages)")" 10
expect_eq "node1 surplus" "$(cat "$(node_file 1 2048 surplus_hugepages)")" 0
# a shrink of node1 the same way: its persistent pages down to 8 (set_max_huge_pages() frees
# down to the pages in use, node0's surplus counted, and makes the rest of node1's surplus)
expect_rc 0 $HPFILLD --once --mode sysfs --shrink --pool 2M:node1=16M
expect_eq "node1 persistent" $(($(node_nr 1 2048) - $(cat "$(node_file 1 2048 surplus_hugepages)"))) 8
expect_eq "node0 surplus" "$(cat "$(node_file 0 2048 surplus_hugepages)")" 10
# hpfilld in a cpuset without node1 (as under AllowedMemoryNodes=0): the kernel allocates it no
# pages on node1 by any method (cpuset_zone_allowed()), so a fill of node1 is refused before
# any write (exit 2, naming the node and the cpuset), and node1 keeps its 8
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup
echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/mems0
echo 0 >/sys/fs/cgroup/mems0/cpuset.mems
expect_rc 2 sh -c 'echo $$ >/sys/fs/cgroup/mems0/cgroup.procs && exec "$0" "$@"' $HPFILLD --once --mode sysfs \
        --pool 2M:node1=48M
expect_in $ERR "node1: not among the nodes this process may allocate memory on \(its cpuset: Mems_allowed_list 0 in /proc/self/status\)"
expect_eq "node1 persistent" $(($(node_nr 1 2048) - $(cat "$(node_file 1 2048 surplus_hugepages)"))) 8
# nor a shrink of it: binding to node1, as a shrink there needs while node0 holds surplus pages,
# is refused in that cpuset
expect_rc 2 sh -c 'echo $$ >/sys/fs/cgroup/mems0/cgroup.procs && exec "$0" "$@"' $HPFILLD --once --mode sysfs \
        --shrink --pool 2M:node1=8M
expect_in $ERR "node1: not among the nodes this process may allocate memory on"
expect_eq "node1 persistent" $(($(node_nr 1 2048) - $(cat "$(node_file 1 2048 surplus_hugepages)"))) 8
expect_eq "node0 surplus" "$(cat "$(node_file 0 2048 surplus_hugepages)")" 10
release
# the workload's pages went with it; node1 keeps what hpfilld left
expect_eq "node0" "$(node_nr 0 2048)" 0
expect_eq "node1 persistent" $(($(node_nr 1 2048) - $(cat "$(node_file 1 2048 surplus_hugepages)"))) 8
echo "surplus-node: all checks passed"
EOF

vm_run 768:0 768:1
vm_expect_log "^kernel: node1 write of 16 with 10 surplus on node0 gave [0-9]+$"
vm_expect_log "^surplus-node: all checks passed$"
echo PASS
