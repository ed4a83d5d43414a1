#!/bin/bash
# SPDX-License-Identifier: MIT
# One VM cell of bench/matrix.py: boots Debian's kernel (tests/vm's QEMU/TCG guest, one node of
# 2 CPUs) with more kernel parameters, fills the guest's 2M pool from 0 to PAGES with each tool
# in turn, RUNS rounds after WARMUP untimed fills, and prints on stdout one "time TOOL MS" line
# per fill and one "pick LINE" (auto's report line), read from the guest's console.
#     HPFILLD=build/hpfilld bench/vm-cell.sh "init_on_alloc=1" PAGES RUNS WARMUP THREADS
# THREADS: fault thread counts, such as 1,2,4. Needs root; touches only the guest's pools.
set -eu
[ $# = 5 ] || { echo "usage: $0 APPEND PAGES RUNS WARMUP THREADS" >&2; exit 2; }
BENCH_APPEND=$1 PAGES=$2 RUNS=$3 WARMUP=$4 THREADS=$5
for n in "$PAGES" "$RUNS" "$WARMUP"; do
        [[ $n =~ ^[0-9]+$ ]] || { echo "$0: '$n' is not a number" >&2; exit 2; }
done
[[ $THREADS =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "$0: bad thread list '$THREADS'" >&2; exit 2; }
: "${HPFILLD_VM_TIMEOUT:=900}"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../tests/vm/lib.sh"

vm_static VM_TIME "$(dirname "$0")/vm-time.c" vm-time
VM_EXTRA="$VM_TIME:/bin/vm-time"
HUGEADM=$(command -v hugeadm || true)
[ -z "$HUGEADM" ] || VM_EXTRA="$VM_EXTRA $HUGEADM:/bin/hugeadm"
VM_APPEND=$BENCH_APPEND

# the tools as matrix.py names them; the guest script below gets them spelled out
tools="echo"
[ -z "$HUGEADM" ] || tools="$tools hugeadm"
tools="$tools sysfs"
for t in ${THREADS//,/ }; do tools="$tools fault-$t"; done
tools="$tools auto"
# one shuffled order per round, line by line, the same in every bench run
orders=$(PYTHONPATH=$(dirname "$0") python3 -c 'import sys, benchlib
for i in range(int(sys.argv[1])):
    print(" ".join(benchlib.round_order(sys.argv[2:], i)))' "$RUNS" $tools)

vm_guest <<GUEST
H=\$HP/hugepages-2048kB
hp="--once -q --pool 2M:$PAGES"
run_tool() { # name: one fill from an empty pool, timed
        case \$1 in
        echo) set -- sh -c "echo $PAGES > \$H/nr_hugepages" ;;
        hugeadm) set -- hugeadm --pool-pages-min 2MB:$PAGES ;;
        sysfs) set -- \$HPFILLD --mode sysfs \$hp ;;
        fault-*) set -- \$HPFILLD --mode fault -t "\${1#fault-}" \$hp ;;
        auto) set -- \$HPFILLD \$hp ;;
        esac
        vm-time "\$@" || fail "\$* failed"
}
echo "cmdline: \$(cat /proc/cmdline)"
echo "hvo: \$(cat /proc/sys/vm/hugetlb_optimize_vmemmap 2>/dev/null || echo n/a)"
i=0
while [ \$i -lt $WARMUP ]; do
        echo $PAGES > \$H/nr_hugepages
        echo 0 > \$H/nr_hugepages
        i=\$((i + 1))
done
i=0
while [ \$i -lt $RUNS ]; do
        # a new order every round, as in benchlib.run_interleaved() (orders made on the host)
        order=\$(echo "$orders" | sed -n "\$((i + 1))p")
        for tool in \$order; do
                echo 0 > \$H/nr_hugepages
                ms=\$(run_tool \$tool)
                expect_eq "\$tool: nr_hugepages" "\$(cat \$H/nr_hugepages)" $PAGES
                expect_eq "\$tool: surplus_hugepages" "\$(cat \$H/surplus_hugepages)" 0
                echo "time \$tool \$ms"
        done
        i=\$((i + 1))
done
echo 0 > \$H/nr_hugepages
echo "pick \$(\$HPFILLD --once --pool 2M:$PAGES | grep '^2M pool:')"
echo 0 > \$H/nr_hugepages
GUEST

vm_run 1536:0-1 >&2
grep -E "^(time|pick) " "$VM_LOG" | tr -d '\r'
