#!/bin/bash
# SPDX-License-Identifier: MIT
# The bench scripts the README and doc/performance.md quote run here at tiny sizes: each exits 0,
# prints its table, and leaves the pools, their overcommit and vm.hugetlb_optimize_vmemmap as it
# found them (the timings themselves are never asserted). matrix.py's VM cells are the vm suite's
# bench-cell.
. "$(dirname "$0")/lib.sh"

BENCH=$SOURCE_ROOT/bench
HVO=/proc/sys/vm/hugetlb_optimize_vmemmap
hvo_found=$(cat "$HVO" 2>/dev/null || echo none)
# a bench that failed half way must not leave HVO changed either (the pools: lib.sh)
[ "$hvo_found" = none ] || EXTRA_CLEANUP='echo "$hvo_found" >"$HVO"'
command -v python3 >/dev/null || fail "no python3 (tools/setup.sh --test installs it)"
# beside a workload that holds pages (in use, or reserved), each bench starts its fills from
# them (bench/benchlib.py, BASE) and says so
pool2m_set 0
before=$(snapshot)

# bench NAME PATTERN CMD...: CMD exits 0, prints a line matching PATTERN, puts everything back
bench() {
        local name=$1 pattern=$2
        shift 2
        echo "# $*"
        expect_rc 0 "$@"
        cat "$WORK/out"
        expect_in "$WORK/out" "$pattern"
        [ "$(snapshot)" = "$before" ] || { diff <(echo "$before") <(snapshot) || true; fail "$name left the pools changed"; }
        [ "$(cat "$HVO" 2>/dev/null || echo none)" = "$hvo_found" ] || fail "$name left $HVO at $(cat "$HVO")"
        grep -q " $WORK\| /tmp/hpfilld-bench-" /proc/mounts && fail "$name left a mount" || true
}

export HPFILLD
bench fill-bench '^hpfilld +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' python3 "$BENCH/fill-bench.py" --hpfilld "$HPFILLD" --size 16M --runs 1 --warmup 0
# the peers, in the same rounds (tools/setup.sh --test installs them); dpdk-hugepages.py asks
# every node for the whole size, and runs where the pools are one node's
peer_row() { grep -Eq "^$1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$WORK/out" || fail "fill-bench.py ran no $1"; }
! command -v hugeadm >/dev/null || peer_row hugeadm
! command -v dpdk-hugepages.py >/dev/null || [ "$(ls -d /sys/devices/system/node/node*/hugepages | wc -l)" -gt 1 ] ||
        peer_row dpdk-hugepages.py
bench fault-bench '^auto +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' python3 "$BENCH/fault-bench.py" --hpfilld "$HPFILLD" --size 16M --runs 1 --warmup 0 \
        --max-threads 2 --no-warm-free
bench matrix 'auto [0-9.]+x (sysfs|fault-[0-9]+), the fastest method \(paired' python3 "$BENCH/matrix.py" --hpfilld "$HPFILLD" --size 8M \
        --runs 1 --warmup 0 --threads 1,2
bench startup '^  hpfilld --once, nothing to do +[0-9.]+ ms +[0-9.]+x$' python3 "$BENCH/startup.py" --hpfilld "$HPFILLD" --runs 1
# the floor is of a machine whose one node of memory is node0, and needs a compiler (tools/setup.sh --test)
if [ "$(echo $nodes)" = 0 ] && command -v cc >/dev/null; then
        bench floor '^hpfilld auto x floor, paired: [0-9.]+$' python3 "$BENCH/floor.py" --hpfilld "$HPFILLD" --size 16M --runs 1 --warmup 0 --back-to-back
        # and each tool's runs in a row, after the interleaved rounds: the floor's row among them
        sed -n '/^back to back /,$p' "$WORK/out" | grep -Eq '^floor +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' ||
                fail "floor.py --back-to-back printed no table of the runs in a row"
        grep -Eq '^back to back, hpfilld auto x floor, paired: [0-9.]+$' "$WORK/out" ||
                fail "floor.py --back-to-back printed no paired ratio to the floor"
        grep -Eq '^hpfilld sysfs x floor \+ calls, paired: [0-9.]+$' "$WORK/out" ||
                fail "floor.py printed no ratio to the floor with hpfilld's calls"
        ! ls -d /run/hpfilld-floor-* 2>/dev/null || fail "floor.py left its directory in /run"
fi
# valgrind: tools/setup.sh --test installs it; a sanitizer's runtime does not run under it
if ldd "$HPFILLD" 2>/dev/null | grep -Eq 'lib(a|t)san'; then
        echo "# skipped instructions.py: $HPFILLD is a sanitizer build, which valgrind cannot run"
elif command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
        bench instructions '^hpfilld sysfs( +[0-9]+){7} +[0-9.]+$' python3 "$BENCH/instructions.py" \
                --hpfilld "$HPFILLD" --pages 8 --top 5
        # a count of each: hpfilld's own functions are named, the fill's among them
        grep -Eq '^  job_fill +[0-9]+ +[0-9.]+%$' "$WORK/out" || fail "instructions.py named none of hpfilld's functions"
else
        echo "# skipped instructions.py: no valgrind"
fi
if [ -d "$HP/hugepages-1048576kB" ]; then
        bench gigantic-bench '^(off|on|n/a) +hpfilld +[0-9]+ +[0-9]+ ' python3 "$BENCH/gigantic-bench.py" \
                --hpfilld "$HPFILLD" --pages 1 --rounds 1
fi
if [ -e "$HVO" ]; then
        bench hvo-workers '^hpfilld -t 1 +[0-9.]+$' python3 "$BENCH/hvo-workers.py" --hpfilld "$HPFILLD" --pages 4 --runs 1
fi
if command -v qemu-system-x86_64 >/dev/null; then
        bench reserve-bench '^QEMU on the reservation less QEMU without prealloc \(paired\): [-+][0-9.]+ ms$' python3 "$BENCH/reserve-bench.py" --hpfilld "$HPFILLD" --size 16M --runs 1 \
                --no-warm-free
fi
echo PASS
