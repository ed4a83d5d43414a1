#!/bin/bash
# SPDX-License-Identifier: MIT
# Prefaulted reservations on this kernel: a file in a hugetlbfs mount holding zeroed pages
# from the pool, with the owner and mode asked for; --release; a short one is removed; and
# libhugetlbfs's HUGETLB_* variables change nothing.
# In a mount namespace of its own: the reservations go to the mount the test makes, never to
# another's (a consumer's hugetlbfs mount of this host)
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

G=$HP/hugepages-2048kB
MNT="$WORK/huge"
# the pool on top of the pages others hold, free and reserved (BASE, BASE_FREE: lib.sh)
T=$((BASE + 100)) F=$BASE_FREE
mkdir -p "$MNT"

# no hugetlbfs mount at all: the run fails before it changes any pool
if ! grep -q " hugetlbfs " /proc/self/mounts; then
        pool2m_set 0
        expect_rc 2 "$HPFILLD" --once --pool "2M:node$first=20" --reserve "nomount:2M:4@$first"
        expect_in "$WORK/err" "--reserve nomount:2M:4@$first: no hugetlbfs mount for 2M pages"
        [ "$(node_nr "$first" 2048)" = "$BASE" ] || fail "the pool was filled for a reservation without a mount"
fi
mount -t hugetlbfs -o pagesize=2M none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
EXTRA_CLEANUP="rm -rf '$MNT/hpfilld'; umount '$MNT'"
pool2m_set 0

expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T" --reserve "vm1:2M:64M@$first"
file=$(sed -n 's/^vm1 reservation: 32\/32 2M pages in [0-9]* ms (fault, [0-9]* threads*\/node, auto) at \(.*\)$/\1/p' "$WORK/out")
[ -n "$file" ] || { cat "$WORK/out"; fail "no reservation line"; }
case $file in
"$MNT"/hpfilld/vm1) ;;
/*/hpfilld/vm1)
        # not ours to keep: the reservation goes before the pools are put back
        "$HPFILLD" --release vm1 >/dev/null 2>&1 || rm -f "$file"
        echo "SKIP: another hugetlbfs mount came first: $file"
        exit 77
        ;;
esac
[ "$(stat -c '%a %U %G %s' "$file")" = "600 root root $((64 << 20))" ] || fail "vm1: $(stat -c '%a %U %G %s' "$file")"
# the pages are in the file: in use, not free
[ "$(node_nr "$first" 2048)" = $T ] || fail "pool: $(node_nr "$first" 2048)"
[ "$(cat $G/free_hugepages)" = $((F + 68)) ] || fail "free: $(cat $G/free_hugepages), expected $((F + 68))"
[ "$(cat $G/surplus_hugepages)" = 0 ] || fail "surplus left"

# they are zeroed and ours to map: read a few bytes of every page
python3 - "$file" <<'PY'
import mmap, sys
with open(sys.argv[1], "r+b") as f:
    m = mmap.mmap(f.fileno(), 0)
    for off in range(0, len(m), 2 << 20):
        assert m[off:off + 64] == bytes(64), off
    m[0:4] = b"used"  # a VM wrote to it
PY

# run again: the old file (now dirty) is replaced by a fresh one
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T" --reserve "vm1:2M:64M@$first"
python3 -c "import mmap,sys; f=open(sys.argv[1],'rb'); m=mmap.mmap(f.fileno(),0,prot=mmap.PROT_READ); assert m[0:4]==bytes(4)" "$file" ||
        fail "a reservation was handed out again with old contents"
[ "$(cat $G/free_hugepages)" = $((F + 68)) ] || fail "the old reservation's pages did not come back: free $(cat $G/free_hugepages)"

# owner, group and mode from a config file
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n[Reserve]\nName=vm2\nPageSize=2M\nAmount=8\nNode=%s\nOwner=nobody\nGroup=nogroup\nMode=0640\n' \
        "$first" "$T" "$first" >"$WORK/r.conf"
expect_rc 0 "$HPFILLD" --once --config "$WORK/r.conf"
[ "$(stat -c '%a %U %G' "$MNT/hpfilld/vm2")" = "640 nobody nogroup" ] || fail "vm2: $(stat -c '%a %U %G' "$MNT/hpfilld/vm2")"
# vm1 is not in that file: it stays
[ "$(cat $G/free_hugepages)" = $((F + 60)) ] || fail "free: $(cat $G/free_hugepages), expected $((F + 60))"

# --release: the file goes, its pages come back free
expect_rc 0 "$HPFILLD" --release vm1
expect_in "$WORK/out" "^vm1: released $MNT/hpfilld/vm1"
[ ! -e "$MNT/hpfilld/vm1" ] || fail "vm1 still there"
[ "$(cat $G/free_hugepages)" = $((F + 92)) ] || fail "free after release: $(cat $G/free_hugepages)"
expect_rc 1 "$HPFILLD" --release vm1
expect_in "$WORK/err" "No reservation 'vm1'"
# only a file hpfilld made: one another put in hpfilld/ is left alone (exit 1)
: >"$MNT/hpfilld/foreign"
expect_rc 1 "$HPFILLD" --release foreign
expect_in "$WORK/err" "No reservation 'foreign' made by hpfilld \(its state records none of that name\)"
[ -e "$MNT/hpfilld/foreign" ] || fail "--release removed a file hpfilld did not make"
rm "$MNT/hpfilld/foreign"

# more than the pool will have free: refused before anything changes, the dry run too
before=$(snapshot)
for dry in "" --dry-run; do
        expect_rc 2 "$HPFILLD" --once $dry --pool "2M:node$first=$((BASE + 120))" --reserve "big:2M:400@$first"
        expect_in "$WORK/err" "^hpfilld: --reserve big:2M:400@$first: node$first: 400 2M pages to reserve, but the 2M pool will have only $(($(node_base_free "$first") + 112)) free there"
done
[ ! -e "$MNT/hpfilld/big" ] || fail "a refused reservation was made"
[ "$(snapshot)" = "$before" ] || fail "a refused reservation changed the pools"

# libhugetlbfs's variables change nothing: no malloc from huge pages, same result
HUGETLB_MORECORE=yes HUGETLB_VERBOSE=99 HUGETLB_PATH=/nonexistent HUGETLB_ELFMAP=RW \
        expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T" --reserve "vm3:2M:4@$first"
expect_in "$WORK/out" "^vm3 reservation: 4/4 2M pages .* at $MNT/hpfilld/vm3$"
[ "$(cat $G/free_hugepages)" = $((F + 88)) ] || fail "free with HUGETLB_* set: $(cat $G/free_hugepages), expected $((F + 88))"
! grep -q libhugetlbfs "$WORK/err" || fail "libhugetlbfs spoke: $(cat "$WORK/err")"

# bad input changes nothing
before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --reserve "vm4:2M:4@$first" --pool 2M:1 --reserve "vm4:2M:8"
expect_in "$WORK/err" "a second reservation named 'vm4'"
[ "$(snapshot)" = "$before" ] || fail "a duplicate reservation changed the pools"
# an unknown owner or group is bad input: the plan is refused before any write (exit 2), the
# dry run and the check too, the place named
printf '[Reserve]\nName=vm5\nPageSize=2M\nAmount=4\nOwner=no-such-user-here\n' >"$WORK/bad.conf"
printf '[Reserve]\nName=vm6\nPageSize=2M\nAmount=4\nGroup=no-such-group-here\n' >>"$WORK/bad.conf"
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" "$((T + 8))" >>"$WORK/bad.conf"
before=$(snapshot)
for how in --check-config "--once --dry-run" --once; do
        expect_rc 2 "$HPFILLD" $how --config "$WORK/bad.conf"
        expect_in "$WORK/err" "^hpfilld: $WORK/bad.conf:1: Owner=no-such-user-here: no such user$"
        expect_in "$WORK/err" "^hpfilld: $WORK/bad.conf:6: Group=no-such-group-here: no such group$"
done
! grep -q "The configuration is good" "$WORK/err" || fail "--check-config called a bad owner good"
expect_rc 2 "$HPFILLD" --once --pool "2M:node$first=$((T + 8))" --reserve "vm5:2M:4,owner=no-such-user-here"
expect_in "$WORK/err" "^hpfilld: --reserve vm5:2M:4,owner=no-such-user-here: Owner=no-such-user-here: no such user$"
[ "$(snapshot)" = "$before" ] || fail "a plan with an unknown owner changed the pools"
[ ! -e "$MNT/hpfilld/vm5" ] && [ ! -e "$MNT/hpfilld/vm6" ] || fail "a reservation with an unknown owner was made"
# a number needs no lookup
printf '[Reserve]\nName=vm7\nPageSize=2M\nAmount=4\nOwner=65534\n' >"$WORK/num.conf"
expect_rc 0 "$HPFILLD" --once --config "$WORK/num.conf"
expect_in "$WORK/out" "^vm7 reservation: 4/4 2M pages"
[ "$(stat -c '%u' "$MNT/hpfilld/vm7")" = 65534 ] || fail "vm7: owner $(stat -c '%u' "$MNT/hpfilld/vm7")"
# a file put at a reservation's name since is not the one hpfilld made: left alone
rm "$MNT/hpfilld/vm7"
: >"$MNT/hpfilld/vm7"
expect_rc 1 "$HPFILLD" --release vm7
expect_in "$WORK/err" "No reservation 'vm7': $MNT/hpfilld/vm7 is not the file hpfilld made, left alone"
[ -e "$MNT/hpfilld/vm7" ] || fail "--release removed a file put at a reservation's name"
rm "$MNT/hpfilld/vm7"
before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --reserve "../x:2M:4"
expect_rc 2 "$HPFILLD" --release "../etc"
[ "$(snapshot)" = "$before" ] || fail "bad input changed the pools"
[ ! -e "$MNT/hpfilld/vm4" ] && [ ! -e "$MNT/hpfilld/vm5" ] || fail "bad input created a reservation"
echo PASS
