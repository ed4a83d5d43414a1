#!/bin/bash
# SPDX-License-Identifier: MIT
# The dracut module in a real dracut initramfs: a Debian rootfs (mmdebstrap, cached) with dracut
# instead of initramfs-tools and systemd, hpfilld installed by `meson install` (prefix /usr,
# -Ddracut=enabled: the module in /usr/lib/dracut/modules.d/90hpfilld), and an initramfs built by
# dracut in the rootfs for the rootfs's kernel (systemd-based, as a Debian or Fedora system gets):
# the modules dracut picks by itself, which must include hpfilld, plus a test-only module,
# 99hpfilldcheck. Booted under QEMU (TCG) with four NUMA nodes (three with a CPU, one memory-only),
# hpfilld.pool=2M:... on the kernel command line and root=/dev/vda, an empty ext4 disk: dracut runs
# the pre-mount hooks once the root device is there, and the VM ends before it is mounted. The
# test module's pre-mount hook runs after hpfilld's (pre-mount 10) and checks, before the root file
# system is mounted (/dev/vda there, nothing on /sysroot), that every node's 2 MiB pool is as
# planned (the memory-only node among them), that hpfilld ran from the hook (its report in the
# kernel log, nothing there above info level) and that `hpfilld status` shows the fill; it prints
# its lines and FAIL: lines to the console and ends the VM through vm-exit with the number of
# failures. The test passes when that number is 0 and the report is on the console.
#
# Needs root, qemu-system-x86_64, mmdebstrap, mkfs.ext4 (e2fsprogs), meson and ninja, and
# Debian's mirror (once: the rootfs is cached). dracut runs in the rootfs only, never on the host.
# Environment: as tests/vm/rootfs.sh says (SOURCE_ROOT, VM_EXIT, HPFILLD_VM_CACHE,
# HPFILLD_VM_MIRROR, HPFILLD_VM_TIMEOUT, HPFILLD_VM_KEEP, CI).
set -eu

# shellcheck source=tests/vm/rootfs.sh
. "$(dirname "${BASH_SOURCE[0]}")/rootfs.sh"
# the guest: as tests/vm/systemd.sh
NODES=(1536:0 1024:1 1024:2 1024)
# the plan: 2 MiB pages per node, sizes and a page count (node2 gets none, node3 has no CPU)
PLAN="node0=64M,node1=24,node3=96M"
WANT="node0=32 node1=24 node2=0 node3=48"

rootfs_setup

### The rootfs: a tarball made by mmdebstrap once, cached under a hash of its arguments

# dracut (which conflicts with initramfs-tools) provides the kernel package's linux-initramfs-tool;
# systemd-sysv: dracut builds the systemd-based initramfs a Debian system gets. Not rootfs-*.tar:
# that is vm-systemd's, which removes the others of that name.
rootfs_tarball dracut-rootfs systemd-sysv,udev,kmod,dracut,linux-image-cloud-amd64,libnuma1,libcap2

### hpfilld for the rootfs: built with prefix /usr and installed by meson, with the dracut module

start=$(date +%s%N)
rootfs_install -Dinitramfs-tools=disabled -Ddracut=enabled
MODDIR=usr/lib/dracut/modules.d/90hpfilld
rootfs_expect usr/sbin/hpfilld etc/hpfilld.conf $MODDIR/module-setup.sh $MODDIR/hpfilld-hook.sh
if grep -n '@[a-z_]*@' "$ROOT/$MODDIR"/*; then
        fail "the installed dracut module has a placeholder left"
fi

# The test module: its pre-mount hook runs after hpfilld's (10), checks and ends the VM. check()
# says "only when asked" (dracut --add), and it depends on nothing: hpfilld must come in by itself.
CHECKDIR=$ROOT/usr/lib/dracut/modules.d/99hpfilldcheck
mkdir -p "$CHECKDIR"
cp "$VM_EXIT" "$CHECKDIR/vm-exit"
cat >"$CHECKDIR/module-setup.sh" <<'EOF'
#!/bin/bash
# hpfilld VM test (tests/vm/dracut.sh): checks the pools in pre-mount and ends the VM
check() {
        return 255
}
depends() {
        return 0
}
install() {
        inst_multiple cat cut dmesg grep sed
        inst_simple "$moddir/vm-exit" /usr/bin/hpfilld-vm-exit
        inst_hook pre-mount 90 "$moddir/hpfilldcheck.sh"
}
EOF
cat >"$CHECKDIR/hpfilldcheck.sh" <<EOF
#!/bin/sh
# hpfilld VM test, in the initramfs (sourced by dracut after hpfilld's pre-mount hook): checks
# the pools and the kernel log, prints to the console, ends the VM with the number of failures
WANT="$WANT"
EOF
cat >>"$CHECKDIR/hpfilldcheck.sh" <<'EOF'
hpfilld_vm_check() {
        local G=hugepages/hugepages-2048kB N=/sys/devices/system/node fails=0 n rec got report
        say() { echo "hpfilld-vm: $*"; }
        bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
        say "pre-mount check at $(cut -d' ' -f1 /proc/uptime) s; nodes with memory $(cat $N/has_memory), with CPUs $(cat $N/has_cpu)"
        say "kernel command line: $(cat /proc/cmdline)"
        # before the root file system is mounted: the device is there, nothing on $NEWROOT yet
        if [ -b /dev/vda ]; then say "root device /dev/vda present"; else bad "no /dev/vda in pre-mount"; fi
        if grep -q " ${NEWROOT:-/sysroot} " /proc/mounts; then
                bad "${NEWROOT:-/sysroot} is already mounted in pre-mount"
        else
                say "nothing mounted on ${NEWROOT:-/sysroot}"
        fi
        rec=""
        for n in 0 1 2 3; do rec="$rec node$n=$(cat $N/node$n/$G/nr_hugepages)"; done
        rec=${rec# }
        if [ "$rec" = "$WANT" ]; then say "2 MiB pages: $rec"; else bad "2 MiB pages are '$rec', expected '$WANT'"; fi
        # hpfilld's records in the kernel log (the hook's --log-target=kmsg) as "FACILITY.LEVEL
        # hpfilld: ...". Not dmesg -r: util-linux 2.38 prints <7> there for user.info.
        dmesg --decode --notime | sed -n 's/^\([a-z]*\) *:\([a-z]*\) *: \(hpfilld: .*\)$/\1.\2 \3/p' >/tmp/hpfilld-vm-kmsg
        sed 's/^/hpfilld-vm: kernel log: /' /tmp/hpfilld-vm-kmsg
        report='^user\.info hpfilld: 2M pool: 104/104 pages on 3 nodes in [0-9.]+ m?s \((sysfs|fault)[^)]*\)(, auto: .*)?$'
        grep -Eq "$report" /tmp/hpfilld-vm-kmsg || bad "no report matching '$report' in the kernel log"
        if grep -Ev '^user\.(info|notice) ' /tmp/hpfilld-vm-kmsg; then
                bad "hpfilld logged more than info to the kernel log, or not as user (above)"
        fi
        got=$(/usr/sbin/hpfilld status 2>&1) || bad "hpfilld status exited $?"
        echo "$got" | sed 's/^/hpfilld-vm: hpfilld status: /'
        echo "$got" | grep -Eq '^Last fill: .*, exit status 0$' || bad "hpfilld status shows no fill with exit status 0"
        [ "$fails" -le 63 ] || fails=63
        say "guest result $fails at $(cut -d' ' -f1 /proc/uptime) s"
        /usr/bin/hpfilld-vm-exit "$fails"
        say "vm-exit failed"
}
# sourced: the function's output goes straight to the console (systemd sends the hook's standard
# output to the journal only)
hpfilld_vm_check >/dev/console 2>&1
EOF

# the initramfs, by dracut in the rootfs for the rootfs's kernel: every module dracut picks by itself
# (no --add hpfilld) plus the test module; --no-hostonly, as the build host is not the guest, and
# only the drivers the guest needs for its disk
rootfs_kernel
rootfs_chroot dracut --force --no-hostonly --no-hostonly-cmdline --add hpfilldcheck \
        --drivers "virtio_blk virtio_pci" --kver "$KVER" "/boot/initrd.img-$KVER" >"$WORK/dracut.log" 2>&1 ||
        { cat "$WORK/dracut.log"; fail "dracut failed in the rootfs"; }
grep -q "Including module: hpfilld " "$WORK/dracut.log" ||
        { cat "$WORK/dracut.log"; fail "dracut did not pick up the hpfilld module by itself"; }
chroot "$ROOT" lsinitrd "/boot/initrd.img-$KVER" >"$WORK/initramfs.list"
for f in usr/sbin/hpfilld etc/hpfilld.conf "boot/config-$KVER" usr/lib/dracut/hooks/pre-mount/10-hpfilld-hook.sh \
        usr/lib/dracut/hooks/pre-mount/90-hpfilldcheck.sh; do
        grep -Eq " ${f//./\\.}( ->.*)?$" "$WORK/initramfs.list" ||
                fail "no $f in the initramfs (lsinitrd: $WORK/initramfs.list)"
done
# the root device: dracut's pre-mount hooks run once it is there; the VM ends before it is mounted
mkfs.ext4 -q -F -L root "$WORK/disk.img" 64M >/dev/null || fail "mkfs.ext4 failed"
echo "rootfs prepared in $(secs "$start") s: hpfilld built and installed, initramfs by dracut ($KVER," \
        "$(du -h "$ROOT/boot/initrd.img-$KVER" | cut -f1))"

### the boot

append="root=/dev/vda console=ttyS0 panic=-1 quiet nokaslr rd.shell=0 rd.emergency=poweroff hpfilld.pool=2M:$PLAN"
LOG=$WORK/console.log
rootfs_boot "" "$LOG" "$append"
# the report on the console, as the guest's check printed it from the kernel log
grep -Eq '^hpfilld-vm: kernel log: user\.info hpfilld: 2M pool: 104/104 pages on 3 nodes in ' "$LOG" ||
        fail "no hpfilld report on the guest console"
echo PASS
