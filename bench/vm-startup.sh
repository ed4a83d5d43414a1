#!/bin/bash
# SPDX-License-Identifier: MIT
# What a run costs in a QEMU/TCG guest (tests/vm's, Debian's kernel, one node of 2 CPUs), where
# an initramfs runs hpfilld before the root file system: busybox's sh -c true, hpfilld --version,
# an --once with nothing to do (the 2M pool empty and asked for 0 with --shrink: it reads the
# guest, takes the lock, records, writes nothing), and a small fill (PAGES 2M pages from an empty
# pool) beside echo's, RUNS rounds in a shuffled order after one untimed round. With
# HPFILLD_STATIC (build/hpfilld-initramfs of -Dstatic-initramfs=true) the same rows for it too. Prints
# one "time NAME MS" line per run, read from the guest's console.
#     HPFILLD=build/hpfilld [HPFILLD_STATIC=build/hpfilld-initramfs] bench/vm-startup.sh RUNS PAGES
# Needs root (QEMU's guest only; nothing of the host's pools is touched).
set -eu
[ $# = 2 ] || { echo "usage: $0 RUNS PAGES" >&2; exit 2; }
RUNS=$1 PAGES=$2
for n in "$RUNS" "$PAGES"; do
        [[ $n =~ ^[0-9]+$ ]] || { echo "$0: '$n' is not a number" >&2; exit 2; }
done
: "${HPFILLD_VM_TIMEOUT:=900}"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../tests/vm/lib.sh"

vm_static VM_TIME "$(dirname "$0")/vm-time.c" vm-time
VM_EXTRA="$VM_TIME:/bin/vm-time"
tools="sh-true version once-nothing echo once-fill"
if [ -n "${HPFILLD_STATIC:-}" ]; then
        [ -x "$HPFILLD_STATIC" ] || fail "HPFILLD_STATIC=$HPFILLD_STATIC is not an executable"
        VM_EXTRA="$VM_EXTRA $HPFILLD_STATIC:/bin/hpfilld-static"
        tools="$tools static-version static-once-nothing static-once-fill"
fi
orders=$(PYTHONPATH=$(dirname "$0") python3 -c 'import sys, benchlib
for i in range(int(sys.argv[1]) + 1):
    print(" ".join(benchlib.round_order(sys.argv[2:], i)))' "$RUNS" $tools)

vm_guest <<GUEST
H=\$HP/hugepages-2048kB
run_tool() { # name: one timed run; the fills from an empty pool
        case \$1 in
        sh-true) set -- busybox sh -c true ;;
        version) set -- \$HPFILLD --version ;;
        once-nothing) set -- \$HPFILLD --once -q --pool 2M:0 --shrink ;;
        echo) set -- sh -c "echo $PAGES > \$H/nr_hugepages" ;;
        once-fill) set -- \$HPFILLD --once -q --mode sysfs --pool 2M:$PAGES ;;
        static-version) set -- hpfilld-static --version ;;
        static-once-nothing) set -- hpfilld-static --once -q --pool 2M:0 --shrink ;;
        static-once-fill) set -- hpfilld-static --once -q --mode sysfs --pool 2M:$PAGES ;;
        esac
        vm-time "\$@" || fail "\$* failed"
}
echo 0 > \$H/nr_hugepages
i=0
# round 0 untimed: the first run of each binary reads it from the initramfs
while [ \$i -le $RUNS ]; do
        order=\$(echo "$orders" | sed -n "\$((i + 1))p")
        for tool in \$order; do
                echo 0 > \$H/nr_hugepages
                ms=\$(run_tool \$tool)
                case \$tool in
                echo|*fill) expect_eq "\$tool: nr_hugepages" "\$(cat \$H/nr_hugepages)" $PAGES ;;
                esac
                [ \$i = 0 ] || echo "time \$tool \$ms"
        done
        i=\$((i + 1))
done
echo 0 > \$H/nr_hugepages
GUEST

vm_run 1536:0-1 >&2
grep -E "^time " "$VM_LOG" | tr -d '\r'
