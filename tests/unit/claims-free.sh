#!/bin/sh
# SPDX-License-Identifier: MIT
# Free pages are anyone's: on a fake machine whose fake kernel keeps the pools' counters
# (fake-pools) and where a workload takes pages (fake_in_use), nothing that gives pages back
# (unclaim, give-back, --shrink, the next command's give-back of a gone claim, bench) takes the
# free pages an active claim added for a VM that has not started, whatever owner's pages are in
# use; and a claim whose VM runs does not keep a stopped VM's pages from going back.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
m=$work/m
n0=$m/sys/devices/system/node/node0/hugepages/hugepages-2048kB

# fresh: a machine of one node, its 2M pool empty, no state
fresh() {
        rm -rf "$m"
        fake_machine "$m" 1 8192 2048
        fake_pools "$m"
        mkdir -p "$m/etc"
}
# run RC ARGS...: hpfilld ARGS under --root, which must exit RC
run() {
        local want=$1 rc=0
        shift
        "$HPFILLD" "$@" --root "$m" >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = "$want" ] || bad "hpfilld $*: exit $rc, expected $want: $(cat "$work/out" "$work/err")"
}
# pool WHAT NR FREE: node0's pool holds NR pages, FREE of them free
pool() {
        [ "$(cat "$n0/nr_hugepages") $(cat "$n0/free_hugepages")" = "$2 $3" ] ||
                bad "$1: nr=$(cat "$n0/nr_hugepages") free=$(cat "$n0/free_hugepages"), expected nr=$2 free=$3: $(cat "$m/run/hpfilld/state")"
}

# vm1's VM still runs (its 10 pages in use) when vm1 is unclaimed; vm2 is then claimed: its 10
# new pages stay, free for vm2 (not given back as the gone vm1's)
fresh
run 0 claim vm1 --pool 2M:10
fake_in_use "$m" 0 2048 10
run 0 unclaim vm1
pool "unclaim vm1 in use" 10 0
run 0 claim vm2 --pool 2M:10
pool "claim vm2 after unclaim vm1 in use" 20 10
run 3 give-back
pool "give-back beside vm2's claim, vm1's pages in use" 20 10
echo "ok: a claim's new pages are not a gone claim's to give back"

# the other order: vm2 claimed (free) while vm1's pages are in use; unclaim vm1 gives back none
fresh
run 0 claim vm1 --pool 2M:10
fake_in_use "$m" 0 2048 10
run 0 claim vm2 --pool 2M:10
run 0 unclaim vm1
pool "unclaim vm1 in use beside vm2's free claim" 20 10
echo "ok: unclaim takes no other claim's free pages"

# give-back and --shrink with the [Pool]'s or a one-off's pages in use keep vm2's free pages
fresh
printf '[Fill]\nMode=sysfs\n[Pool]\nPageSize=2M\nAmount=10\n' >"$m/etc/hpfilld.conf"
run 0 --once
fake_in_use "$m" 0 2048 10
run 0 claim vm2 --pool 2M:10
run 3 give-back
pool "give-back with the configuration's pages in use" 20 10
fresh
run 0 --once --mode sysfs --pool 2M:10
fake_in_use "$m" 0 2048 10
run 0 claim vm2 --pool 2M:10
run 0 --once --mode sysfs --shrink --pool 2M:4
pool "--shrink with the one-off's pages in use" 20 10
echo "ok: give-back and --shrink keep a claim's free pages"

# libvirt's order: vm2's VM runs on its claim, vm1's VM stopped (its pages free) and is then
# unclaimed: vm1's 10 go back at once (vm2's pages are the ones in use)
fresh
run 0 claim vm1 --pool 2M:10
run 0 claim vm2 --pool 2M:10
fake_in_use "$m" 0 2048 10
run 0 unclaim vm1
pool "unclaim of a stopped VM's claim beside a running one" 10 0
echo "ok: a running VM's claim keeps no stopped VM's pages"

# a bench killed just after its pool write leaves its pages bench's; a workload maps them; the
# next bench gives back only free pages: no page in use made surplus, the pool not below what it found
fresh
k=1
while :; do
        fresh
        HPFILLD_FAKE_KILL_STEP=$k HPFILLD_FAKE_KILL_AFTER=1 "$HPFILLD" bench --root "$m" --runs 1 --size 64M \
                >/dev/null 2>&1 || true
        [ "$(cat "$n0/nr_hugepages")" = 0 ] || break
        k=$((k + 1))
        [ $k -lt 50 ] || { bad "no bench step left pages in the pool"; break; }
done
held=$(cat "$n0/nr_hugepages")
fake_in_use "$m" 0 2048 "$held"
"$HPFILLD" bench --root "$m" --runs 1 --size 64M >"$work/out" 2>"$work/err" || true
[ "$(cat "$n0/surplus_hugepages")" = 0 ] || bad "bench made pages in use surplus: $(cat "$n0/surplus_hugepages")"
[ "$(cat "$n0/nr_hugepages")" = "$held" ] || bad "bench left $(cat "$n0/nr_hugepages") pages, found $held (in use)"
echo "ok: bench gives back free pages only ($held of a killed bench's in use kept)"
passed
