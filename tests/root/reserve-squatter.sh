#!/bin/bash
# SPDX-License-Identifier: MIT
# A squatter on a hugetlbfs mount of mode 1777: nobody makes hpfilld/ there first (with a file of
# its own inside, which root without CAP_FOWNER could not remove). The fill moves it aside,
# untouched, under a name of its own, says so, and makes the reservation in a new hpfilld/ of
# root's; the squatter's directory and file are still there, still nobody's. A run whose plan is
# refused moves nothing. In a mount namespace of its own, so that the mount is the only one for
# 2M pages.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
MNT=$WORK/huge
mkdir -p "$MNT"
chmod 0755 "$WORK"
mount -t hugetlbfs -o pagesize=2M,mode=1777 none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
EXTRA_CLEANUP="rm -rf '$MNT'/hpfilld*; umount '$MNT'"
pool2m_set 0
# the pool on top of the pages others hold (BASE, lib.sh)
T=$((BASE + 8))

# the squatter
setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 0755 "$MNT/hpfilld"
setpriv --reuid=65534 --regid=65534 --clear-groups touch "$MNT/hpfilld/mine"
setpriv --reuid=65534 --regid=65534 --clear-groups chmod 0555 "$MNT/hpfilld"

# a run whose plan is refused (bad input: a reservation, or a pool, of more than the node has)
# changes nothing, the squatter's directory included: where and as it was
before=$(cd "$MNT" && stat -c '%n %u %g %a %i' . hpfilld hpfilld/mine && ls -a)
for plan in "--pool 2M:node$first=$T --reserve vm1:2M:100T@$first" "--pool 2M:100T --reserve vm1:2M:4@$first"; do
        # shellcheck disable=SC2086 # the words of $plan
        expect_rc 2 "$HPFILLD" --once $plan
        expect_in "$WORK/err" "more than"
        [ "$(grep -c "more than" "$WORK/err")" = 1 ] || fail "--once $plan: said more than once: $(cat "$WORK/err")"
        ! grep -q "moved aside" "$WORK/err" || fail "--once $plan: $(cat "$WORK/err")"
        [ "$(cd "$MNT" && stat -c '%n %u %g %a %i' . hpfilld hpfilld/mine && ls -a)" = "$before" ] ||
                fail "--once $plan, refused, changed $MNT: $(ls -la "$MNT")"
done
echo "ok: a refused --once leaves the squatter's hpfilld/ where and as it was"

expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T" --reserve "vm1:2M:4@$first"
cat "$WORK/out" "$WORK/err"
expect_in "$WORK/err" "hpfilld: $MNT/hpfilld was a directory of user '[a-z]+' \\(uid 65534\\), mode 0555: moved aside to $MNT/hpfilld\\.moved\\.65534\\.[0-9]+, and a new one made"
[ "$(stat -c '%U %a' "$MNT/hpfilld")" = "root 755" ] || fail "hpfilld/ is $(stat -c '%U %a' "$MNT/hpfilld"), expected root's, 0755"
[ "$(stat -c '%s' "$MNT/hpfilld/vm1")" = $((4 << 21)) ] || fail "no reservation of 4 pages in $MNT/hpfilld"
moved=$(ls -d "$MNT"/hpfilld.moved.65534.*)
[ "$(stat -c '%u' "$moved")" = 65534 ] && [ -e "$moved/mine" ] || fail "the squatter's directory was not kept as it was: $moved"
echo "ok: the squatter's hpfilld/ moved aside to $moved, the reservation made"

# a second fill finds its own and moves nothing
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$T" --reserve "vm1:2M:4@$first"
! grep -q "moved aside" "$WORK/err" || fail "a second fill moved something: $(cat "$WORK/err")"
[ "$(ls -d "$MNT"/hpfilld.moved.* | wc -l)" = 1 ] || fail "more than one directory moved aside"
"$HPFILLD" --release vm1 >/dev/null
echo "ok: a second fill keeps its own"

# the admin names a mount of root's (Mount=), after the 1777 one in the mount table: the
# reservation goes there, and a squatter's hpfilld/ on the other is left alone
OWN=$WORK/huge-root
mkdir -p "$OWN"
mount -t hugetlbfs -o pagesize=2M,mode=0755 none "$OWN"
EXTRA_CLEANUP="rm -rf '$MNT'/hpfilld* '$OWN'/hpfilld; umount '$OWN'; umount '$MNT'"
rm -rf "$MNT"/hpfilld*
setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 0755 "$MNT/hpfilld"
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=4\nNode=%s\nMount=%s\n' \
        "$first" "$T" "$first" "$OWN" >"$WORK/r.conf"
expect_rc 0 "$HPFILLD" --once --config "$WORK/r.conf"
[ "$(stat -c '%s' "$OWN/hpfilld/vm1")" = $((4 << 21)) ] || fail "no reservation in the mount named: $(cat "$WORK/out" "$WORK/err")"
! grep -q "moved aside" "$WORK/err" || fail "the other mount's hpfilld/ was moved: $(cat "$WORK/err")"
[ "$(stat -c %u "$MNT/hpfilld")" = 65534 ] || fail "the squatter's directory on the other mount changed"
"$HPFILLD" --release vm1 >/dev/null
[ ! -e "$OWN/hpfilld/vm1" ] || fail "--release left $OWN/hpfilld/vm1"
echo "ok: Mount= names the mount: $OWN/hpfilld/vm1 made, $MNT/hpfilld left alone"
echo PASS
