# SPDX-License-Identifier: MIT
# Shared by the VM test scripts (lib.sh and systemd.sh): how a guest's result comes back, and
# how a test that cannot run says so.

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
