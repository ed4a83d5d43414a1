#!/bin/bash
# SPDX-License-Identifier: MIT
# Shared by the VM tests (sourced by bash): skip or fail when they cannot run, build a busybox
# initramfs holding hpfilld and a guest test script, boot it under QEMU (TCG) with a NUMA
# topology, and turn the guest's verdict into the test's. Only the guest's pools are touched.
#
# A test script: vm_guest <<'EOF' (the guest script, busybox sh, guest-lib.sh sourced first),
# then vm_run NODE... (each node "MiB[:CPUS]", no CPUS: a memory-only node), then vm_expect_log.
#
# Environment: HPFILLD (the binary, required), VM_EXIT (the vm-exit helper; built here with
# ${CC:-cc} -static when unset), HPFILLD_VM_KERNEL (a vmlinuz to use instead of fetching one),
# HPFILLD_VM_CACHE (see fetch-kernel.sh), HPFILLD_VM_TIMEOUT (seconds per boot, default 240),
# HPFILLD_VM_KEEP=1 (keep the work directory), CI (set: what would be a skip is a failure);
# VM_APPEND (set by a test script): more kernel parameters; VM_EXTRA (set by a script): more
# executables for the initramfs, "SOURCE:/DEST ...", with their libraries.
set -eu

VM_TIMEOUT=${HPFILLD_VM_TIMEOUT:-240}

# shellcheck source=tests/vm/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
: "${HPFILLD:?HPFILLD must name the hpfilld binary}"
[ -x "$HPFILLD" ] || fail "HPFILLD=$HPFILLD is not an executable"
command -v qemu-system-x86_64 >/dev/null || cannot_run "no qemu-system-x86_64 (package qemu-system-x86)"
for tool in cpio gzip timeout; do
        command -v "$tool" >/dev/null || cannot_run "no $tool"
done
VM_BUSYBOX=$(command -v busybox || true)
[ -n "$VM_BUSYBOX" ] || cannot_run "no busybox (package busybox-static)"

if [ -n "${HPFILLD_VM_KERNEL:-}" ]; then
        VM_KERNEL=$HPFILLD_VM_KERNEL
        [ -r "$VM_KERNEL" ] || cannot_run "HPFILLD_VM_KERNEL=$VM_KERNEL is not readable"
else
        VM_KERNEL=$("$VM_DIR/fetch-kernel.sh") || cannot_run "no kernel image for the VM (tests/vm/fetch-kernel.sh failed)"
fi

vm_workdir test
VM_LOG=$WORK/console.log
vm_static VM_EXIT "$VM_DIR/vm-exit.c" vm-exit

# vm_guest: the guest test script, read from stdin
vm_guest() {
        cat >"$WORK/test.sh"
}

# copy_elf ROOT FILE DEST: FILE as ROOT/DEST, and the shared libraries and dynamic loader it
# needs at the paths ldd shows
copy_elf() {
        local root=$1 file=$2 dest=$3 lib
        mkdir -p "$root/$(dirname "$dest")"
        cp "$file" "$root/$dest"
        # a static binary: "not a dynamic executable", exit status 1
        ldd "$file" >/dev/null 2>&1 || return 0
        for lib in $(ldd "$file" | grep -o '/[^ ]*'); do
                [ -e "$root/$lib" ] && continue
                mkdir -p "$root/$(dirname "$lib")"
                cp -L "$lib" "$root/$lib"
        done
}

# vm_initramfs: $WORK/initrd.gz with busybox, hpfilld and its libraries, vm-exit, the guest
# library and test script, and /init
vm_initramfs() {
        local root=$WORK/initramfs applet extra
        rm -rf "$root"
        mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc}
        copy_elf "$root" "$VM_BUSYBOX" /bin/busybox
        for applet in $("$VM_BUSYBOX" --list); do
                [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
        done
        copy_elf "$root" "$HPFILLD" /bin/hpfilld
        for extra in ${VM_EXTRA:-}; do
                copy_elf "$root" "${extra%%:*}" "${extra#*:}"
        done
        copy_elf "$root" "$VM_EXIT" /bin/vm-exit
        cp "$VM_DIR/guest-lib.sh" "$root/guest-lib.sh"
        cp "$WORK/test.sh" "$root/test.sh"
        # the kernel opens /dev/console for /init before devtmpfs is mounted
        mknod -m 600 "$root/dev/console" c 5 1
        cat >"$root/init" <<EOF
#!/bin/sh
# PID 1 of an hpfilld test VM: mounts, runs /test.sh, ends the VM with its status.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
exec </dev/console >/dev/console 2>&1
echo "hpfilld-vm: guest up at \$(cut -d' ' -f1 /proc/uptime) s: \$(uname -r), \$(nproc) CPUs"
rc=0
sh -c '. /guest-lib.sh; . /test.sh' || rc=\$?
echo "hpfilld-vm: guest result \$rc at \$(cut -d' ' -f1 /proc/uptime) s"
[ "\$rc" -le $VM_MAX_BYTE ] || rc=$VM_MAX_BYTE
/bin/vm-exit "\$rc"
echo "hpfilld-vm: vm-exit failed; powering off (QEMU exits 0: a harness error)"
poweroff -f
EOF
        chmod 755 "$root/init"
        (cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$WORK/initrd.gz"
}

# vm_run NODE...: boots the guest with one NUMA node per argument, "MiB[:CPUS]" (CPUS as QEMU's
# cpus=, such as 0 or 1-2; without it the node has memory only), and fails the test unless the
# guest test passed. The console goes to $VM_LOG; its tail is shown.
vm_run() {
        local start
        vm_numa "$@"
        vm_initramfs

        echo "booting $(basename "$VM_KERNEL"): $*, -smp $VM_SMP -m ${VM_MEM}M, timeout ${VM_TIMEOUT}s"
        start=$(date +%s%N)
        # nokaslr: with KASLR the kernel image lands at a random physical address, on node1 in
        # some boots, and then the node has no free gigabyte for a 1 GiB page.
        vm_qemu "$VM_LOG" -kernel "$VM_KERNEL" -initrd "$WORK/initrd.gz" \
                -append "console=ttyS0 panic=-1 quiet nokaslr${VM_APPEND:+ $VM_APPEND}"
        echo "--- guest console (last 80 lines)"
        tail -n 80 "$VM_LOG"
        echo "--- QEMU exited $VM_STATUS after $(secs "$start") s"

        if [ "$VM_STATUS" = 124 ]; then
                fail "no result within ${VM_TIMEOUT}s (QEMU killed; a hang in the guest?)"
        elif [ "$VM_STATUS" = 1 ] && [ "$VM_RESULT" = 0 ]; then
                return 0
        elif vm_failed_in_guest; then
                fail "the guest test failed with status $VM_RESULT (see FAIL above)"
        elif [ "$VM_STATUS" = 0 ]; then
                fail "harness error: QEMU exited 0 (kernel panic, or the guest powered off without vm-exit)"
        else
                fail "harness error: QEMU exited $VM_STATUS, guest result '${VM_RESULT:-none}' (QEMU refused the command line?)"
        fi
}

# vm_expect_log ERE: a line of the guest console matches
vm_expect_log() {
        grep -Eq -- "$1" "$VM_LOG" || fail "no line matching '$1' on the guest console"
}
