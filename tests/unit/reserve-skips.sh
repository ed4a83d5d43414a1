#!/bin/sh
# SPDX-License-Identifier: MIT
# --pools-only, on a fake machine (tests/unit/fake-tree.sh; nothing of the host's): the initramfs
# hooks pass it, and it fills the pools of a configuration whose reservations cannot be made
# there (no hugetlbfs mount, an owner not known yet, no MADV_POPULATE_WRITE under --root), which
# without it stops the fill (exit 2) before any pool is written. (--check-config on a
# reservation a fill would skip: root-reserve.)
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$(dirname "$0")/fake-tree.sh"
work_dir

pool() { cat "$work/t/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"; }
run() { # WANT ARGS...
        want=$1
        shift
        rc=0
        timeout 20 "$HPFILLD" --root "$work/t" --mode sysfs "$@" >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = "$want" ] || bad "'$*' exited $rc, expected $want: $(cat "$work/err")"
}

# the initramfs: no hugetlbfs mount, an owner not known yet
fake_machine "$work/t" 1 4096 2048
printf '[Pool]\nPageSize=2M\nAmount=8\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=4\nOwner=no-such-user-here\n' >"$work/r.conf"
printf '[Reserve]\nName=vm2\nPageSize=2M\nAmount=4\n' >>"$work/r.conf"
run 2 --once --config "$work/r.conf"
grep -q "r.conf:4: reservations need" "$work/err" || bad "no word of the reservation: $(cat "$work/err")"
[ "$(pool)" = 0 ] || bad "a fill that exited 2 wrote the pool: $(pool)"
run 0 --once --pools-only --config "$work/r.conf"
[ "$(pool)" = 8 ] || bad "--pools-only: the pool is at $(pool), not 8"
grep -q "2 reservations left out (--pools-only)" "$work/err" || bad "--pools-only said: $(cat "$work/err")"
! grep -q "vm1\|vm2" "$work/out" || bad "--pools-only reported a reservation: $(cat "$work/out")"
echo "ok: --pools-only: the pool filled (8 pages), both reservations left out"
# the hooks pass it
for h in initramfs/initramfs-tools/script.in initramfs/dracut/hpfilld-hook.sh; do
        grep -q "hpfilld --once --pools-only " "$SOURCE_ROOT/$h" || bad "$h does not pass --pools-only"
done
run 2 --once --pools-only --reserve vm3:2M:4
grep -q -- "--pools-only and --reserve: one or the other" "$work/err" || bad "--pools-only --reserve: $(cat "$work/err")"
passed
