# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared by the VM test scripts (sourced by lib.sh and rootfs.sh): how a guest's result comes
# back, how a test that cannot run says so, the work directory and its cleanup, the static
# helpers the guest runs, and QEMU itself: vm_numa, then vm_qemu (the callers judge the result).
# Sets VM_DIR (this folder) and VM_NAME (the test, from the script's name: fail's prefix).

# shellcheck disable=SC2034 # for the scripts that source this
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_NAME=$(basename "$0" .sh)

# QEMU's isa-debug-exit: the guest writes byte B to port 0xf4, QEMU exits with (B << 1) | 1.
# The guest writes 0 for a pass (QEMU: 1) and min(status, 63) for a failure (QEMU: 3..127).
# Anything else, 0 included (a kernel panic with panic=-1 -no-reboot), is a harness error.
VM_MAX_BYTE=63

# cannot_run REASON: a skip (77), but a failure where CI is set: CI must not pass by skipping
cannot_run() {
        case ${CI:-} in
        "" | false | 0)
                echo "SKIP: $*"
                exit 77
                ;;
        *)
                echo "FAIL: $* (CI=$CI: not skipping)" >&2
                exit 1
                ;;
        esac
}

fail() {
        echo "FAIL: $VM_NAME: $*" >&2
        exit 1
}

secs() { # since (date +%s%N): seconds with one decimal
        local t=$((($(date +%s%N) - $1) / 100000000))
        echo "$((t / 10)).$((t % 10))"
}

# vm_workdir NAME: WORK, a new /tmp/hpfilld-vm-NAME.XXXXXX, removed when the test ends (kept
# with HPFILLD_VM_KEEP=1), and QEMU (vm_qemu's) killed then
vm_workdir() {
        WORK=$(mktemp -d "/tmp/hpfilld-vm-$1.XXXXXX")
        VM_QEMU_PID=""
        trap vm_cleanup EXIT
        trap 'exit 130' INT TERM
}

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
                # rootfs.sh's chroot mounts were in a mount namespace of their own: none is left
                # here
                rm -rf --one-file-system "$WORK"
        fi
        exit "$rc"
}

# vm_static VAR SOURCE NAME: $VAR, a static executable the guest runs with nothing else: as the
# environment gives it, or (VAR unset or empty) built from SOURCE with ${CC:-cc} -static as
# $WORK/<SOURCE's name without .c>; NAME names it in the message when that cannot be done
vm_static() {
        local var=$1
        if [ -z "${!var:-}" ]; then
                printf -v "$var" %s "$WORK/$(basename "$2" .c)"
                "${CC:-cc}" -static -O2 -Wall -Wextra -Werror -o "${!var}" "$2" ||
                        cannot_run "cannot build $3 with ${CC:-cc} -static (static libc missing?)"
        fi
        [ -x "${!var}" ] || fail "$var=${!var} is not an executable"
        if ldd "${!var}" >/dev/null 2>&1; then
                fail "${!var} is not statically linked"
        fi
}

# vm_numa NODE...: the guest's NUMA nodes, one per argument, "MiB[:CPUS]" (CPUS as QEMU's cpus=,
# such as 0 or 1-2; without it the node has memory only): VM_NUMA (QEMU's -object and -numa
# arguments), VM_MEM (MiB in all) and VM_SMP (the CPUs: up to the highest one named)
vm_numa() {
        local spec mib cpus hi id=0
        VM_NUMA=()
        VM_MEM=0
        VM_SMP=0
        for spec in "$@"; do
                mib=${spec%%:*}
                cpus=""
                [ "$spec" = "$mib" ] || cpus=${spec#*:}
                [[ $mib =~ ^[1-9][0-9]*$ && $cpus =~ ^([0-9]+(-[0-9]+)?)?$ ]] || fail "${FUNCNAME[1]}: bad node '$spec'"
                VM_NUMA+=(-object "memory-backend-ram,id=m$id,size=${mib}M"
                        -numa "node,nodeid=$id,memdev=m$id${cpus:+,cpus=$cpus}")
                VM_MEM=$((VM_MEM + mib))
                if [ -n "$cpus" ]; then
                        hi=${cpus##*-}
                        [ $((hi + 1)) -le "$VM_SMP" ] || VM_SMP=$((hi + 1))
                fi
                id=$((id + 1))
        done
        [ "$VM_SMP" -gt 0 ] || fail "${FUNCNAME[1]}: no node has CPUs"
}

# vm_qemu LOG ARG...: boots the guest vm_numa set up under QEMU (TCG, within $VM_TIMEOUT s),
# with ARG... (-kernel, -initrd, -append and the like) and isa-debug-exit. The serial console
# goes to LOG, as plain text. VM_STATUS: QEMU's exit status (124: killed by the timeout);
# VM_RESULT: the number on the console's last "hpfilld-vm: guest result N" line, or empty.
# vm_qemu LOG QEMU-ARGS...: one boot (vm_qemu_once); a guest kernel that panics before any of the
# guest's own lines (hpfilld-vm: ...) is booted once more, and the first console kept as LOG.1.
# Debian 13's kernel oopses at times on an int3 of its own text patching under multi-threaded
# TCG, in the first seconds of boot, before anything of the test has run.
vm_qemu() {
        local log=$1
        vm_qemu_once "$@"
        if [ "$VM_STATUS" = 0 ] && grep -q "Kernel panic" "$log" && ! grep -q "^hpfilld-vm: " "$log"; then
                mv "$log" "$log.1"
                echo "the guest kernel panicked before the test started: $(grep -m1 -E 'Oops|BUG|panic' "$log.1"); booting once more (console: $log.1)"
                vm_qemu_once "$@"
        fi
}

vm_qemu_once() {
        local log=$1
        shift
        # stdin from /dev/null: QEMU must not read the test runner's terminal
        timeout "$VM_TIMEOUT" qemu-system-x86_64 \
                -accel tcg,thread=multi -cpu max \
                -m "${VM_MEM}M" -smp "$VM_SMP" "${VM_NUMA[@]}" \
                -nodefaults -nographic -no-reboot -serial stdio -monitor none \
                "$@" \
                -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
                </dev/null >"$log" 2>&1 &
        VM_QEMU_PID=$!
        VM_STATUS=0
        wait "$VM_QEMU_PID" || VM_STATUS=$?
        VM_QEMU_PID=""
        # the serial console writes CR LF; SeaBIOS clears the screen
        sed -e "s/\r//g" -e "s/\x1b\[[0-9;?]*[A-Za-z]//g" -e "s/\x1bc/\n/g" "$log" >"$log.txt"
        mv "$log.txt" "$log"
        VM_RESULT=$(sed -n 's/^hpfilld-vm: guest result \([0-9]*\) .*/\1/p' "$log" | tail -n 1)
}

# vm_failed_in_guest: after vm_qemu, whether the guest ended the VM with a failure count
vm_failed_in_guest() {
        [ $((VM_STATUS % 2)) = 1 ] && [ "$VM_STATUS" -ge 3 ] && [ "$VM_STATUS" -le $((VM_MAX_BYTE * 2 + 1)) ] &&
                [ -n "$VM_RESULT" ]
}
