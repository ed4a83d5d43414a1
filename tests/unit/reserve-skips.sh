#!/bin/sh
# SPDX-License-Identifier: MIT
# --pools-only, on a fake tree (nothing of the host's): the initramfs hooks pass it, and it fills
# the pools of a configuration whose reservations cannot be made there (no hugetlbfs mount, an
# owner not known yet, no MADV_POPULATE_WRITE known), which without it stops the fill (exit 2)
# before any pool is written. (--check-config on a reservation a fill would skip: root-reserve.)
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# one node of 4 GiB, 2M pages, an empty pool, no hugetlbfs mount
t=$work/t
n=$t/sys/devices/system/node
mkdir -p "$n/node0/hugepages/hugepages-2048kB" "$t/sys/kernel/mm/hugepages/hugepages-2048kB" "$t/proc/self" "$t/etc"
for f in nr_hugepages free_hugepages surplus_hugepages; do echo 0 >"$n/node0/hugepages/hugepages-2048kB/$f"; done
echo 0 >"$t/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
printf 'Node 0 MemTotal:       4194304 kB\nNode 0 MemFree:        4000000 kB\n' >"$n/node0/meminfo"
echo 0-1 >"$n/node0/cpulist"
echo 0-1 >"$n/has_cpu"
echo 10 >"$n/node0/distance"
: >"$n/node0/compact"
for f in online has_memory; do echo 0 >"$n/$f"; done
: >"$t/proc/cmdline"
echo "proc /proc proc rw 0 0" >"$t/proc/self/mounts"
pool() { cat "$work/t/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"; }
run() { # WANT ARGS...
        want=$1
        shift
        rc=0
        timeout 20 "$HPFILLD" --root "$work/t" --mode sysfs "$@" >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = "$want" ] || bad "'$*' exited $rc, expected $want: $(cat "$work/err")"
}
conf() { # RESERVE-LINES...: a pool of 8 pages and a reservation of 4
        printf '[Pool]\nPageSize=2M\nAmount=8\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=4\n' >"$work/r.conf"
        for l in "$@"; do echo "$l" >>"$work/r.conf"; done
}

# the initramfs: no hugetlbfs mount, an owner not known yet
conf Owner=no-such-user-here
printf '[Reserve]\nName=vm2\nPageSize=2M\nAmount=4\n' >>"$work/r.conf"
run 2 --once --config "$work/r.conf"
grep -q "r.conf:4: reservations need" "$work/err" || bad "no word of the reservation: $(cat "$work/err")"
[ "$(pool)" = 0 ] || bad "a fill that exited 2 wrote the pool: $(pool)"
run 0 --once --pools-only --config "$work/r.conf"
[ "$(pool)" = 8 ] || bad "--pools-only: the pool is at $(pool), not 8"
grep -q "2 reservation(s) left out (--pools-only)" "$work/err" || bad "--pools-only said: $(cat "$work/err")"
! grep -q "vm1\|vm2" "$work/out" || bad "--pools-only reported a reservation: $(cat "$work/out")"
echo "ok: --pools-only: the pool filled (8 pages), both reservations left out"
# the hooks pass it
for h in initramfs/initramfs-tools/script.in initramfs/dracut/hpfilld-hook.sh; do
        grep -q "hpfilld --once --pools-only " "$SOURCE_ROOT/$h" || bad "$h does not pass --pools-only"
done
run 2 --once --pools-only --reserve vm3:2M:4
grep -q -- "--pools-only and --reserve: one or the other" "$work/err" || bad "--pools-only --reserve: $(cat "$work/err")"
[ "$fails" = 0 ] || exit 1
