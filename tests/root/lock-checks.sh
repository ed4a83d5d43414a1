#!/bin/bash
# SPDX-License-Identifier: MIT
# A fill that waited for another one's lock checks again, before its first write, on what the
# other one left: the first fill (paused mid-fill by a FIFO rendezvous, holding the lock) grows
# the pool to 60 pages and makes a 30-page reservation; the second, asking for a 40-page
# reservation of the same pool, passes its checks while the first is paused (60 pages planned,
# all free), waits, then finds only 30 free and exits 2 with the numbers, writing nothing. The
# same with pages reserved by others' mappings (resv_hugepages) while it waits, and with the
# memory budget (on a fake tree under --root: a real one would take gigabytes). And a fill
# that did not wait, when another came and went between its plan and its lock.
# In a mount namespace of its own: the reservations go to the mount the test makes, never to
# another's (a consumer's hugetlbfs mount of this host)
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"
need_test_hooks

G=$HP/hugepages-2048kB
pause_fifo
MNT="$WORK/huge"
mkfifo "$WORK/err2"
mkdir -p "$MNT"
mount -t hugetlbfs -o pagesize=2M none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
# the workload first: a mount with a file mapped cannot be unmounted
EXTRA_CLEANUP='[ -z "${HOLD_PID:-}" ] || { kill "$HOLD_PID"; wait "$HOLD_PID"; }; "$HPFILLD" --release a b >/dev/null 2>&1; rm -rf "$MNT/hpfilld" "$MNT/other"; umount "$MNT"'
# the pools on top of the pages others hold, free and reserved (BASE_ALL, BASE_FREE, BASE_RESV: lib.sh)
T=$((BASE_ALL + 60))

# start_paused VAR=VALUE... CMD...: the first fill (pid in PID1, output in out1 and err1), in
# the background until it is at the rendezvous on $FIFO its hook variables set up
start_paused() {
        env "$@" >"$WORK/out1" 2>"$WORK/err1" &
        PID1=$!
        wait_paused "$FIFO"
}
# first_paused ARGS...: the first fill, in steps of 10 pages, paused after its 2nd step
first_paused() {
        start_paused HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 HPFILLD_TEST_STEP_PAGES=10 \
                "$HPFILLD_HOOKED" --once --mode sysfs "$@"
}
# second ARGS...: the second fill, in the background, once it says it waits (its first checks
# passed then)
second() {
        "$HPFILLD" --once --mode sysfs "$@" >"$WORK/out2" 2>"$WORK/err2" &
        PID2=$!
        exec 4<"$WORK/err2"
        read_waiting || true
        echo "$line" | grep -q "Another fill is running: pid $PID1" || fail "the second fill said '$line'"
}
# second_ends RC: lets the first go on, then the second must end with RC; its stderr in err2.rest
second_ends() {
        fifo_go "$FIFO"
        wait $PID1 || { cat "$WORK/out1" "$WORK/err1"; fail "the first fill failed"; }
        [ "$(pool2m_nr)" = $T ] || fail "the first fill left $(pool2m_nr) pages, expected $T"
        before=$(snapshot)
        second_exits "$1"
}

# the first one's reservation takes the free pages the second one's needed
pool2m_set 0
first_paused --pool 2M:$T --reserve a:2M:30
second --pool 2M:$T --reserve b:2M:40
checkpoint waiting
second_ends 2
expect_in "$WORK/err2.rest" "--reserve b:2M:40: node[0-9]+: 40 2M pages to reserve, but the 2M pool will have only $((30 + $(node_base_free "$first"))) free there"
[ "$(snapshot)" = "$before" ] || fail "the second fill changed the pools after its wait"
[ "$(cat $G/free_hugepages)" = $((BASE_FREE + 30)) ] || fail "free_hugepages $(cat $G/free_hugepages), expected $((BASE_FREE + 30))"
expect_rc 0 "$HPFILLD" --release a

# others' mappings reserve 20 pages (of the 20 the paused fill has made) while the second one
# waits: 40 of the 60 are left for its 41
pool2m_set 0
first_paused --pool 2M:$T
second --pool 2M:$T --reserve b:2M:41
mkdir -p "$MNT/other"
reserve_pages "$MNT/other/f" 20
second_ends 2
expect_in "$WORK/err2.rest" "--reserve b:2M:41: 41 2M pages to reserve, but the 2M pool will have only 40 free for them: $((BASE_FREE + 60)) free less $((BASE_RESV + 20)) reserved by other mappings"
[ "$(snapshot)" = "$before" ] || fail "the second fill changed the pools after its wait"
reserve_release

# the memory budget, under --root on a fake tree (node0 of 4 GiB, 3840 MiB of it for huge pages;
# its own lock in the tree's run/hpfilld): the first fill grows the 2M pool to 1000 pages (2000
# MiB); the second, asking for two 1G pages, fits while the first is paused at 200 (2448 MiB),
# and no longer once it is done (4048 MiB): exit 2, the numbers, nothing written
R=$WORK/fake
N=$R/sys/devices/system/node
fake() { mkdir -p "$(dirname "$R/$1")"; printf '%s\n' "$2" >"$R/$1"; }
for f in online has_memory; do fake sys/devices/system/node/$f 0; done
fake sys/devices/system/node/has_cpu 0-1
fake sys/devices/system/node/node0/cpulist 0-1
fake sys/devices/system/node/node0/distance 10
fake sys/devices/system/node/node0/compact ""
printf 'Node 0 MemTotal:       4194304 kB\nNode 0 MemFree:        4000000 kB\n' >"$N/node0/meminfo"
for kb in 2048 1048576; do
        for f in nr_hugepages free_hugepages surplus_hugepages; do
                fake "sys/devices/system/node/node0/hugepages/hugepages-${kb}kB/$f" 0
        done
        for f in nr_hugepages free_hugepages surplus_hugepages resv_hugepages nr_overcommit_hugepages; do
                fake "sys/kernel/mm/hugepages/hugepages-${kb}kB/$f" 0
        done
done
mkdir -p "$R/etc" "$R/run"
start_paused HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 HPFILLD_TEST_STEP_PAGES=100 \
        "$HPFILLD_HOOKED" --once --root "$R" --mode sysfs --pool 2M:1000
second --root "$R" --pool 1G:2
fifo_go "$FIFO"
wait $PID1 || { cat "$WORK/out1" "$WORK/err1"; fail "the first fill failed"; }
second_exits 2
expect_in "$WORK/err2.rest" "node0: 4048 MiB of huge pages planned \(2M 2000 MiB, 1G 2048 MiB \(--pool 1G:2\)\), more than the 3840 MiB left"
[ "$(cat "$N/node0/hugepages/hugepages-1048576kB/nr_hugepages")" = 0 ] || fail "the second fill wrote the 1G pool"

# no wait at all: the 2M fill comes and goes between the 1G fill's plan and its lock (paused
# there by HPFILLD_TEST_PLANNED_FIFO, without the lock): the pools moved, so it plans and checks
# again, and the budget no longer fits
for f in nr_hugepages free_hugepages; do
        fake "sys/devices/system/node/node0/hugepages/hugepages-2048kB/$f" 0
        fake "sys/kernel/mm/hugepages/hugepages-2048kB/$f" 0
done
start_paused HPFILLD_TEST_PLANNED_FIFO="$FIFO" "$HPFILLD_HOOKED" --once --root "$R" --mode sysfs --pool 1G:2
expect_rc 0 "$HPFILLD" --once --root "$R" --mode sysfs --pool 2M:1000
fifo_go "$FIFO"
rc=0
wait $PID1 || rc=$?
[ "$rc" = 2 ] || { cat "$WORK/out1" "$WORK/err1"; fail "the fill planned before the other exited $rc, expected 2"; }
expect_in "$WORK/err1" "node0: 4048 MiB of huge pages planned \(2M 2000 MiB, 1G 2048 MiB \(--pool 1G:2\)\), more than the 3840 MiB left"
[ "$(cat "$N/node0/hugepages/hugepages-1048576kB/nr_hugepages")" = 0 ] || fail "the fill planned before the other wrote the 1G pool"
echo PASS
