#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld --once from an initramfs, the initramfs-tools way: the init-premount script (rendered
# from initramfs/initramfs-tools/script.in) sits at /scripts/init-premount/hpfilld and hpfilld at
# /sbin/hpfilld, where the hook puts them, and the guest runs the script as initramfs-tools' init
# does. Two boots of four NUMA nodes (three with a CPU, one memory-only):
#   1. hpfilld.pool= on the kernel command line: each node's 2 MiB pool as planned, the report on
#      the console (--once prints it on stdout, --log-target=kmsg takes the log messages only) and
#      nothing in the kernel log above info level;
#   2. a bad hpfilld.pool=: the script still returns 0 and the boot goes on, hpfilld exits 2, and
#      the kernel log names the bad parameter, at error level;
#   3. a drop-in with a [Pool] and a [Reserve] whose owner the initramfs does not know (and no
#      hugetlbfs mount): the pool is filled, the reservation left out (--pools-only), exit 0.
# VM_APPEND is read by lib.sh's vm_run:
# shellcheck disable=SC2034
. "$(dirname "$0")/lib.sh"

SOURCE_ROOT=${SOURCE_ROOT:-$(cd "$VM_DIR/../.." && pwd)}
SCRIPT_IN=$SOURCE_ROOT/initramfs/initramfs-tools/script.in
[ -r "$SCRIPT_IN" ] || fail "no $SCRIPT_IN (SOURCE_ROOT=$SOURCE_ROOT)"

# The hook copies hpfilld to /sbin/hpfilld in the initramfs whatever the prefix, so the script is
# rendered with that path (meson renders it with the installed sbindir).
mkdir -p "$WORK/extra/scripts/init-premount" "$WORK/extra/sbin"
sed 's|@sbindir@|/sbin|g' "$SCRIPT_IN" >"$WORK/extra/scripts/init-premount/hpfilld"
chmod 755 "$WORK/extra/scripts/init-premount/hpfilld"
if grep -n '@[a-z_]*@' "$WORK/extra/scripts/init-premount/hpfilld"; then
        fail "$SCRIPT_IN has a placeholder this test does not know"
fi
cp "$HPFILLD" "$WORK/extra/sbin/hpfilld"

# lib.sh's initramfs, with a second archive appended (the kernel unpacks concatenated archives in
# turn): the script and /sbin/hpfilld (its libraries are in the first one).
eval "vm_initramfs_base() $(declare -f vm_initramfs | sed 1d)"
vm_initramfs() {
        vm_initramfs_base
        (cd "$WORK/extra" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >>"$WORK/initrd.gz"
}

# Shared by both guest scripts: run_premount runs /scripts/init-premount/hpfilld as
# initramfs-tools' init does (its PATH, no set -e; run_scripts ignores the status, the check here
# wants 0); its output is on the console. kmsg_hpfilld: hpfilld's records in the kernel log, raw
# (<PRI>, facility user: <11> error, <12> warning, <14> info).
GUEST_COMMON=$(cat <<'EOF'
run_premount() {
        local rc=0
        echo "# /scripts/init-premount/hpfilld (cmdline: $(cat /proc/cmdline))"
        (cd / && env -i PATH=/sbin:/usr/sbin:/bin:/usr/bin /scripts/init-premount/hpfilld) >$OUT 2>&1 || rc=$?
        sed 's/^/  | /' $OUT
        expect_eq "the init-premount script's status" "$rc" 0
        echo "init goes on after init-premount"
}
kmsg_hpfilld() {
        dmesg -r | sed -n 's/^\(<[0-9]*>\)\(\[[ 0-9.]*\] \)\{0,1\}\(hpfilld: .*\)$/\1\3/p' >/tmp/kmsg
        echo "# hpfilld in the kernel log:"
        sed 's/^/  | /' /tmp/kmsg
}
expect_kmsg() { # extended-regexp
        grep -Eq -- "$1" /tmp/kmsg || fail "no line matching '$1' in the kernel log"
}
EOF
)

vm_guest <<EOF
$GUEST_COMMON
expect_topology 0-3 0-2
expect_counts 2048 0 0 0 0
run_premount
expect_counts 2048 32 16 0 48
expect_eq "global nr_hugepages" "\$(cat \$HP/hugepages-2048kB/nr_hugepages)" 96
expect_in \$OUT "^2M pool: 96/96 pages on 3 nodes in [0-9.]+ m?s \((sysfs|fault)[^)]*\)(, auto: .*)?\$"
expect_in \$OUT "^  node3: 0 -> 48 \(target 48\)\$"
kmsg_hpfilld
if grep -v '^<1[4-5]>' /tmp/kmsg; then fail "hpfilld logged more than info to the kernel log (above)"; fi
echo "initramfs: cmdline pools checks passed"
EOF
VM_APPEND="hpfilld.pool=2M:node0=64M,node1=32M,node3=96M"
vm_run 1536:0 1024:1 1024:2 1024
vm_expect_log "^initramfs: cmdline pools checks passed$"

vm_guest <<EOF
$GUEST_COMMON
run_premount
expect_counts 2048 0 0 0 0
kmsg_hpfilld
expect_kmsg "^<11>hpfilld: .*kernel command line: hpfilld\.pool=2M:0"
expect_kmsg "^<1[0-4]>hpfilld: exit status 2, the boot goes on\$"
echo "initramfs: bad parameter checks passed"
EOF
VM_APPEND="hpfilld.pool=2M:0"
vm_run 1536:0 1024:1 1024:2 1024
vm_expect_log "^init goes on after init-premount$"
vm_expect_log "^initramfs: bad parameter checks passed$"

vm_guest <<EOF
$GUEST_COMMON
mkdir -p /etc/hpfilld.conf.d
printf '[Pool]\nPageSize=2M\nAmount=node1=16\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=4\nOwner=vmuser\n' >/etc/hpfilld.conf.d/vm.conf
run_premount
expect_counts 2048 0 16 0 0
expect_in \$OUT "^2M pool: 16/16 pages"
kmsg_hpfilld
expect_kmsg "^<1[4-5]>hpfilld: 1 reservation left out \\(--pools-only\\)"
if grep -q "exit status" /tmp/kmsg; then fail "hpfilld failed in the initramfs (above)"; fi
echo "initramfs: reservations left out checks passed"
EOF
VM_APPEND=""
vm_run 1536:0 1024:1 1024:2 1024
vm_expect_log "^initramfs: reservations left out checks passed$"
echo PASS
