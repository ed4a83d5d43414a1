#!/bin/bash
# SPDX-License-Identifier: MIT
# Pages other mappings hold reserved are not free to a new reservation: with a workload holding
# 30 of the pool's 40 free pages reserved (a MAP_SHARED mapping of a hugetlbfs file, never
# touched: resv_hugepages 30), a reservation of 11 pages fails before anything is written
# (exit 2, the numbers in the message), --dry-run says the same, and one of 10 fits, as does one
# of 11 when the plan grows the pool by one page.
# In a mount namespace of its own: the reservations go to the mount the test makes, never to
# another's (a consumer's hugetlbfs mount of this host)
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

G=$HP/hugepages-2048kB
MNT="$WORK/huge"
mkdir -p "$MNT"
mount -t hugetlbfs -o pagesize=2M none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
# the workload first: a mount with a file mapped cannot be unmounted
EXTRA_CLEANUP='[ -z "${HOLD_PID:-}" ] || { kill "$HOLD_PID"; wait "$HOLD_PID"; }; "$HPFILLD" --release vm1 >/dev/null 2>&1; rm -rf "$MNT/hpfilld" "$MNT/other"; umount "$MNT"'
# 40 pages above what others hold, free and reserved (BASE_ALL, BASE_FREE, BASE_RESV: lib.sh)
pool2m_set 0
pool2m_set 40
[ "$(pool2m_nr)" = $((BASE_ALL + 40)) ] || { echo "SKIP: the pool grew to $(pool2m_nr) of $((BASE_ALL + 40)) pages only"; exit 77; }
F=$((BASE_FREE + 40)) R=$((BASE_RESV + 30))

# the workload: maps 30 pages of a file, shared, and touches none: they are reserved, still free
mkdir "$MNT/other"
reserve_pages "$MNT/other/f" 30
[ "$(cat $G/resv_hugepages)" = $R ] || fail "resv_hugepages $(cat $G/resv_hugepages), expected $R"
[ "$(cat $G/free_hugepages)" = $F ] || fail "free_hugepages $(cat $G/free_hugepages), expected $F"
checkpoint reserved

before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --pool 2M:$((BASE_ALL + 40)) --reserve vm1:2M:11
expect_in "$WORK/err" "--reserve vm1:2M:11: 11 2M pages to reserve, but the 2M pool will have only 10 free for them: $F free less $R reserved by other mappings \(resv_hugepages"
[ "$(snapshot)" = "$before" ] || fail "a failed reservation check changed the pools"
[ ! -e "$MNT/hpfilld/vm1" ] || fail "a reservation file was made"
expect_rc 2 "$HPFILLD" --once --dry-run --pool 2M:$((BASE_ALL + 40)) --reserve vm1:2M:11
expect_in "$WORK/err" "only 10 free for them: $F free less $R reserved"

# what is left fits
expect_rc 0 "$HPFILLD" --once --pool 2M:$((BASE_ALL + 40)) --reserve vm1:2M:10
expect_in "$WORK/out" "^vm1 reservation: 10/10 2M pages"
[ "$(cat $G/free_hugepages)" = $((F - 10)) ] || fail "free_hugepages $(cat $G/free_hugepages), expected $((F - 10))"
expect_rc 0 "$HPFILLD" --release vm1
# the pool's new pages are free for it
expect_rc 0 "$HPFILLD" --once --pool 2M:$((BASE_ALL + 41)) --reserve vm1:2M:11
expect_in "$WORK/out" "^vm1 reservation: 11/11 2M pages"
expect_rc 0 "$HPFILLD" --release vm1

reserve_release
[ "$(cat $G/resv_hugepages)" = "$BASE_RESV" ] || fail "resv_hugepages $(cat $G/resv_hugepages) after the workload, $BASE_RESV before it"
echo PASS
