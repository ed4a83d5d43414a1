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
# VM_APPEND (set by a test script): more kernel parameters.
set -eu

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TIMEOUT=${HPFILLD_VM_TIMEOUT:-240}
VM_NAME=$(basename "$0" .sh)

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

WORK=$(mktemp -d /tmp/hpfilld-vm-test.XXXXXX)
VM_LOG=$WORK/console.log
VM_QEMU_PID=""

vm_cleanup() {
        local rc=$?
        # a killed test (meson's timeout, ^C) must not leave QEMU running: timeout(1) passes the
        # signal on to QEMU
        if [ -n "$VM_QEMU_PID" ]; then
                kill "$VM_QEMU_PID" 2>/dev/null || true
                wait "$VM_QEMU_PID" 2>/dev/null || true
        fi
        if [ "${HPFILLD_VM_KEEP:-0}" = 1 ]; then
                echo "kept $WORK"
        else
                rm -rf "$WORK"
        fi
        exit "$rc"
}
trap vm_cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${VM_EXIT:-}" ]; then
        VM_EXIT=$WORK/vm-exit
        "${CC:-cc}" -static -O2 -Wall -Wextra -Werror -o "$VM_EXIT" "$VM_DIR/vm-exit.c" ||
                cannot_run "cannot build vm-exit with ${CC:-cc} -static (static libc missing?)"
fi
[ -x "$VM_EXIT" ] || fail "VM_EXIT=$VM_EXIT is not an executable"
# vm-exit runs in the guest with nothing else: it must be static
if ldd "$VM_EXIT" >/dev/null 2>&1; then
        fail "$VM_EXIT is not statically linked"
fi

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
        local root=$WORK/initramfs applet
        rm -rf "$root"
        mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc}
        copy_elf "$root" "$VM_BUSYBOX" /bin/busybox
        for applet in $("$VM_BUSYBOX" --list); do
                [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
        done
        copy_elf "$root" "$HPFILLD" /bin/hpfilld
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
        local spec mib cpus hi id=0 total=0 smp=0 start took status rc
        local -a numa=()
        for spec in "$@"; do
                mib=${spec%%:*}
                cpus=""
                [ "$spec" = "$mib" ] || cpus=${spec#*:}
                [[ $mib =~ ^[1-9][0-9]*$ && $cpus =~ ^([0-9]+(-[0-9]+)?)?$ ]] || fail "vm_run: bad node '$spec'"
                numa+=(-object "memory-backend-ram,id=m$id,size=${mib}M"
                        -numa "node,nodeid=$id,memdev=m$id${cpus:+,cpus=$cpus}")
                total=$((total + mib))
                if [ -n "$cpus" ]; then
                        hi=${cpus##*-}
                        [ $((hi + 1)) -le "$smp" ] || smp=$((hi + 1))
                fi
                id=$((id + 1))
        done
        [ "$smp" -gt 0 ] || fail "vm_run: no node has CPUs"
        vm_initramfs

        echo "booting $(basename "$VM_KERNEL"): $*, -smp $smp -m ${total}M, timeout ${VM_TIMEOUT}s"
        start=$(date +%s%N)
        # nokaslr: with KASLR the kernel image lands at a random physical address, on node1 in
        # some boots, and then the node has no free gigabyte for a 1 GiB page.
        # stdin from /dev/null: QEMU must not read the test runner's terminal
        timeout "$VM_TIMEOUT" qemu-system-x86_64 \
                -accel tcg,thread=multi -cpu max \
                -m "${total}M" -smp "$smp" "${numa[@]}" \
                -nodefaults -nographic -no-reboot -serial stdio -monitor none \
                -kernel "$VM_KERNEL" -initrd "$WORK/initrd.gz" \
                -append "console=ttyS0 panic=-1 quiet nokaslr${VM_APPEND:+ $VM_APPEND}" \
                -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
                </dev/null >"$VM_LOG" 2>&1 &
        VM_QEMU_PID=$!
        status=0
        wait "$VM_QEMU_PID" || status=$?
        VM_QEMU_PID=""
        # the serial console writes CR LF; SeaBIOS clears the screen
        sed -e "s/\r//g" -e "s/\x1b\[[0-9;?]*[A-Za-z]//g" -e "s/\x1bc/\n/g" "$VM_LOG" >"$VM_LOG.txt"
        mv "$VM_LOG.txt" "$VM_LOG"
        echo "--- guest console (last 80 lines)"
        tail -n 80 "$VM_LOG"
        took=$((($(date +%s%N) - start) / 100000000))
        echo "--- QEMU exited $status after $((took / 10)).$((took % 10)) s"

        rc=$(sed -n 's/^hpfilld-vm: guest result \([0-9]*\) .*/\1/p' "$VM_LOG" | tail -n 1)
        if [ "$status" = 124 ]; then
                fail "no result within ${VM_TIMEOUT}s (QEMU killed; a hang in the guest?)"
        elif [ "$status" = 1 ] && [ "$rc" = 0 ]; then
                return 0
        elif [ $((status % 2)) = 1 ] && [ "$status" -ge 3 ] && [ "$status" -le $((VM_MAX_BYTE * 2 + 1)) ] &&
                [ -n "$rc" ]; then
                fail "the guest test failed with status $rc (see FAIL above)"
        elif [ "$status" = 0 ]; then
                fail "harness error: QEMU exited 0 (kernel panic, or the guest powered off without vm-exit)"
        else
                fail "harness error: QEMU exited $status, guest result '${rc:-none}' (QEMU refused the command line?)"
        fi
}

# vm_expect_log ERE: a line of the guest console matches
vm_expect_log() {
        grep -Eq -- "$1" "$VM_LOG" || fail "no line matching '$1' on the guest console"
}
