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
# Environment: SOURCE_ROOT (the source tree to build and install; default: this script's), VM_EXIT
# (the static vm-exit helper; built with ${CC:-cc} -static when unset), HPFILLD_VM_CACHE (default
# /var/cache/hpfilld-vm: the rootfs tarball, keyed by a hash of the mmdebstrap arguments),
# HPFILLD_VM_MIRROR (default: the host's apt source for the suite), HPFILLD_VM_TIMEOUT (seconds
# for the boot, default 300), HPFILLD_VM_KEEP=1 (keep the work directory), CI (set: what would be
# a skip is a failure).
set -eu

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE_ROOT=${SOURCE_ROOT:-$(cd "$VM_DIR/../.." && pwd)}
# shellcheck disable=SC2034 # common.sh's fail names the test
VM_NAME=dracut
VM_TIMEOUT=${HPFILLD_VM_TIMEOUT:-300}
CACHE=${HPFILLD_VM_CACHE:-/var/cache/hpfilld-vm}
SUITE=bookworm
# the guest: as tests/vm/systemd.sh
NODES=(1536:0 1024:1 1024:2 1024)
# the plan: 2 MiB pages per node, sizes and a page count (node2 gets none, node3 has no CPU)
PLAN="node0=64M,node1=24,node3=96M"
WANT="node0=32 node1=24 node2=0 node3=48"
# shellcheck source=tests/vm/common.sh disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || cannot_run "no qemu-system-x86_64 (package qemu-system-x86)"
command -v mmdebstrap >/dev/null || cannot_run "no mmdebstrap (package mmdebstrap)"
command -v mkfs.ext4 >/dev/null || cannot_run "no mkfs.ext4 (package e2fsprogs)"
for tool in meson ninja tar timeout chroot unshare flock sha256sum; do
        command -v "$tool" >/dev/null || cannot_run "no $tool"
done
[ -r "$SOURCE_ROOT/meson.build" ] || fail "SOURCE_ROOT=$SOURCE_ROOT is no source tree"

WORK=$(mktemp -d /tmp/hpfilld-vm-dracut.XXXXXX)
ROOT=$WORK/root
QEMU_PID=""

cleanup() {
        local rc=$?
        if [ -n "$QEMU_PID" ]; then
                kill "$QEMU_PID" 2>/dev/null || true
                wait "$QEMU_PID" 2>/dev/null || true
        fi
        if [ "${HPFILLD_VM_KEEP:-0}" = 1 ]; then
                echo "kept $WORK"
        else
                # the chroot's mounts were in a mount namespace of their own: none is left here
                rm -rf --one-file-system "$WORK"
        fi
        exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

secs() { # since (date +%s%N): seconds with one decimal
        local t=$((($(date +%s%N) - $1) / 100000000))
        echo "$((t / 10)).$((t % 10))"
}

if [ -z "${VM_EXIT:-}" ]; then
        VM_EXIT=$WORK/vm-exit
        "${CC:-cc}" -static -O2 -Wall -Wextra -Werror -o "$VM_EXIT" "$VM_DIR/vm-exit.c" ||
                cannot_run "cannot build vm-exit with ${CC:-cc} -static (static libc missing?)"
fi
[ -x "$VM_EXIT" ] || fail "VM_EXIT=$VM_EXIT is not an executable"
if ldd "$VM_EXIT" >/dev/null 2>&1; then
        fail "$VM_EXIT is not statically linked"
fi

### The rootfs: a tarball made by mmdebstrap once, cached under a hash of its arguments

# mirror: the host's apt source for $SUITE (main), or any Debian suite's, or deb.debian.org
mirror=${HPFILLD_VM_MIRROR:-}
if [ -z "$mirror" ]; then
        # shellcheck disable=SC2016 # apt-get's own $(FIELD) syntax
        targets=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' 2>/dev/null |
                sort -u || true)
        mirror=$(echo "$targets" | awk -v s="$SUITE" '$2 == s && $3 == "main" { print $1; exit }')
        [ -n "$mirror" ] || mirror=$(echo "$targets" | awk '$2 !~ /-/ && $3 == "main" { print $1; exit }')
        [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi
# dracut (which conflicts with initramfs-tools) provides the kernel package's linux-initramfs-tool;
# systemd-sysv: dracut builds the systemd-based initramfs a Debian system gets
# shellcheck disable=SC2054 # the commas are mmdebstrap's
mm_args=(--variant=apt
        --include=systemd-sysv,udev,kmod,dracut,linux-image-cloud-amd64,libnuma1,libcap2
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
        --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Languages "none"'
        "$SUITE")
key=$(printf '%s\n' "${mm_args[@]}" | sha256sum | cut -c1-12)
# not rootfs-*.tar: that is vm-systemd's, which removes the others of that name
rootfs=$CACHE/dracut-rootfs-$SUITE-$key.tar
mkdir -p "$CACHE"
exec 9>"$CACHE/.dracut-rootfs.lock"
flock 9
if [ ! -s "$rootfs" ]; then
        echo "building the rootfs with mmdebstrap from $mirror (once; a few minutes)"
        start=$(date +%s%N)
        rm -f "$CACHE"/.dracut-rootfs.*.tar # what a killed build left
        tmp=$(mktemp "$CACHE/.dracut-rootfs.XXXXXX.tar")
        if ! mmdebstrap -q "${mm_args[@]}" "$tmp" "$mirror" >"$WORK/mmdebstrap.log" 2>&1; then
                tail -n 30 "$WORK/mmdebstrap.log"
                rm -f "$tmp"
                cannot_run "mmdebstrap failed (no network or mirror?) - see above"
        fi
        chmod 644 "$tmp"
        mv "$tmp" "$rootfs"
        for old in "$CACHE"/dracut-rootfs-*.tar; do
                [ "$old" = "$rootfs" ] || rm -f "$old"
        done
        echo "rootfs: $(du -h "$rootfs" | cut -f1) in $(secs "$start") s"
fi
exec 9>&-

### hpfilld for the rootfs: built with prefix /usr and installed by meson, with the dracut module

start=$(date +%s%N)
if ! { meson setup "$WORK/build" "$SOURCE_ROOT" --prefix=/usr -Dtests=false -Dinitramfs-tools=disabled \
        -Ddracut=enabled -Dman-pages=disabled && ninja -C "$WORK/build"; } >"$WORK/build.log" 2>&1; then
        tail -n 30 "$WORK/build.log"
        fail "building hpfilld with --prefix=/usr failed"
fi
mkdir "$ROOT"
tar -x -C "$ROOT" -f "$rootfs"
DESTDIR=$ROOT meson install -C "$WORK/build" --no-rebuild >"$WORK/install.log" 2>&1 ||
        { cat "$WORK/install.log"; fail "meson install failed"; }
MODDIR=usr/lib/dracut/modules.d/90hpfilld
for f in usr/sbin/hpfilld etc/hpfilld.conf $MODDIR/module-setup.sh $MODDIR/hpfilld-hook.sh; do
        [ -e "$ROOT/$f" ] || { cat "$WORK/install.log"; fail "meson install put no /$f in the rootfs"; }
done
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
        report='^user\.info hpfilld: 2M pool: 104/104 pages on 3 nodes in [0-9.]+ m?s \((sysfs|fault)[^)]*\)$'
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
# only the drivers the guest needs for its disk. The chroot's /proc, /sys and /dev (a tmpfs with a
# few nodes, not the host's) are mounted in a mount namespace of its own: they go away with it,
# however the test ends.
kernel=$(cd "$ROOT/boot" && printf '%s\n' vmlinuz-* | sort -V | tail -n 1)
[ -f "$ROOT/boot/$kernel" ] || fail "no kernel in the rootfs's /boot"
kver=${kernel#vmlinuz-}
# shellcheck disable=SC2016 # expanded by that shell
unshare --mount --propagation private /bin/sh -ec '
        mount -t proc proc "$1/proc"
        mount -t sysfs sysfs "$1/sys"
        mount -t tmpfs -o mode=755 tmpfs "$1/dev"
        for node in null:3 zero:5 full:7 random:8 urandom:9; do
                mknod -m 666 "$1/dev/${node%:*}" c 1 "${node#*:}"
        done
        chroot "$1" dracut --force --no-hostonly --no-hostonly-cmdline --add hpfilldcheck \
                --drivers "virtio_blk virtio_pci" --kver "$2" "/boot/initrd.img-$2"
' sh "$ROOT" "$kver" >"$WORK/dracut.log" 2>&1 ||
        { cat "$WORK/dracut.log"; fail "dracut failed in the rootfs"; }
grep -q "Including module: hpfilld " "$WORK/dracut.log" ||
        { cat "$WORK/dracut.log"; fail "dracut did not pick up the hpfilld module by itself"; }
chroot "$ROOT" lsinitrd "/boot/initrd.img-$kver" >"$WORK/initramfs.list"
for f in usr/sbin/hpfilld etc/hpfilld.conf "boot/config-$kver" usr/lib/dracut/hooks/pre-mount/10-hpfilld-hook.sh \
        usr/lib/dracut/hooks/pre-mount/90-hpfilldcheck.sh; do
        grep -Eq " ${f//./\\.}( ->.*)?$" "$WORK/initramfs.list" ||
                fail "no $f in the initramfs (lsinitrd: $WORK/initramfs.list)"
done
# the root device: dracut's pre-mount hooks run once it is there; the VM ends before it is mounted
mkfs.ext4 -q -F -L root "$WORK/disk.img" 64M >/dev/null || fail "mkfs.ext4 failed"
echo "rootfs prepared in $(secs "$start") s: hpfilld built and installed, initramfs by dracut ($kver," \
        "$(du -h "$ROOT/boot/initrd.img-$kver" | cut -f1))"

### the boot

nodes_args=()
total=0
id=0
for spec in "${NODES[@]}"; do
        mib=${spec%%:*}
        cpus=""
        [ "$spec" = "$mib" ] || cpus=${spec#*:}
        nodes_args+=(-object "memory-backend-ram,id=m$id,size=${mib}M"
                -numa "node,nodeid=$id,memdev=m$id${cpus:+,cpus=$cpus}")
        total=$((total + mib))
        id=$((id + 1))
done
append="root=/dev/vda console=ttyS0 panic=-1 quiet nokaslr rd.shell=0 rd.emergency=poweroff hpfilld.pool=2M:$PLAN"
LOG=$WORK/console.log
echo "booting $kernel, nodes ${NODES[*]}, timeout ${VM_TIMEOUT}s, append: $append"
start=$(date +%s%N)
# stdin from /dev/null: QEMU must not read the test runner's terminal
timeout "$VM_TIMEOUT" qemu-system-x86_64 \
        -accel tcg,thread=multi -cpu max \
        -m "${total}M" -smp 3 "${nodes_args[@]}" \
        -nodefaults -nographic -no-reboot -serial stdio -monitor none -nic none \
        -kernel "$ROOT/boot/$kernel" -initrd "$ROOT/boot/initrd.img-$kver" \
        -append "$append" \
        -drive "file=$WORK/disk.img,if=virtio,format=raw" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        </dev/null >"$LOG" 2>&1 &
QEMU_PID=$!
status=0
wait "$QEMU_PID" || status=$?
QEMU_PID=""
sed -e "s/\r//g" -e "s/\x1b\[[0-9;?]*[A-Za-z]//g" -e "s/\x1bc/\n/g" "$LOG" >"$LOG.txt"
mv "$LOG.txt" "$LOG"
rc=$(sed -n 's/^hpfilld-vm: guest result \([0-9]*\) .*/\1/p' "$LOG" | tail -n 1)
if [ "$status" = 1 ] && [ "$rc" = 0 ]; then
        grep -E '^(hpfilld-vm|FAIL):' "$LOG"
        echo "--- passed, QEMU exited after $(secs "$start") s"
else
        echo "--- guest console (last 150 lines)"
        tail -n 150 "$LOG"
        echo "--- QEMU exited $status after $(secs "$start") s"
        if [ "$status" = 124 ]; then
                fail "no result within ${VM_TIMEOUT}s (QEMU killed; the boot hung?)"
        elif [ $((status % 2)) = 1 ] && [ "$status" -ge 3 ] && [ "$status" -le $((VM_MAX_BYTE * 2 + 1)) ] &&
                [ -n "$rc" ]; then
                fail "$rc check(s) failed in the guest (see FAIL above)"
        elif [ "$status" = 0 ]; then
                fail "harness error: QEMU exited 0 (kernel panic, or the guest powered off without vm-exit)"
        else
                fail "harness error: QEMU exited $status, guest result '${rc:-none}'"
        fi
fi
# the report on the console, as the guest's check printed it from the kernel log
grep -Eq '^hpfilld-vm: kernel log: user\.info hpfilld: 2M pool: 104/104 pages on 3 nodes in ' "$LOG" ||
        fail "no hpfilld report on the guest console"
echo PASS
