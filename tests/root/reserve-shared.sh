#!/bin/bash
# SPDX-License-Identifier: MIT
# Reservations on a hugetlbfs mount that other users can write (mode 1777, as hugeadm's
# --create-global-mounts makes): a hpfilld/ of another user's, a symlink in its place or in
# place of the file are moved aside (with a warning) or not followed by --once, refused by
# --release; the user's files stay as they were. The happy path, under umask 077, still gives a 0755 hpfilld/.
# In a mount namespace of its own: its mount is the only one for 2M pages, whatever others of
# this host have mounted
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

MNT="$WORK/huge"
# nobody must reach the mount: the work dir is traversable, not listable
chmod 0711 "$WORK"
mkdir -p "$MNT" "$WORK/target"
echo precious >"$WORK/victim"
mount -t hugetlbfs -o pagesize=2M,mode=1777 none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
EXTRA_CLEANUP="rm -rf '$MNT'/hpfilld*; umount '$MNT'"
first_mount=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/self/mounts)
[ "$first_mount" = "$MNT" ] || { echo "SKIP: another hugetlbfs mount came first: $first_mount"; exit 77; }
pool2m_set 8

as_nobody() {
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# refused: exit 1, the message names the directory and why, no pool changed, nothing created
refused() { # pattern hpfilld-args...
        local pattern=$1 before
        shift
        before=$(snapshot)
        expect_rc 1 "$HPFILLD" "$@"
        expect_in "$WORK/err" "$pattern"
        [ "$(snapshot)" = "$before" ] || fail "a refused reservation changed the pools"
}

# moved: exit 0, the warning names what was moved where, the reservation made in a new
# hpfilld/ of root's, what was moved kept as it was; then all of it removed
moved() { # pattern hpfilld-args...
        local pattern=$1
        shift
        expect_rc 0 "$HPFILLD" "$@"
        expect_in "$WORK/err" "$pattern: moved aside to $MNT/hpfilld\.moved\.[0-9]+\.[0-9]+, and a new one made"
        [ "$(stat -c '%a %U' "$MNT/hpfilld")" = "755 root" ] || fail "hpfilld/ after the move: $(stat -c '%a %U' "$MNT/hpfilld")"
        [ -f "$MNT/hpfilld/vm1" ] || fail "no reservation in the new hpfilld/"
        "$HPFILLD" --release vm1 >/dev/null
        rm -rf "$MNT"/hpfilld*
}

# vm1 as the state records it (a fill made it), its file gone since: --release looks for it
recorded() {
        expect_rc 0 "$HPFILLD" --once --reserve "vm1:2M:4@$first"
        rm -rf "$MNT"/hpfilld*
}

# another user's hpfilld/, mode 0777: --release leaves a file there alone; a fill moves it aside
recorded
as_nobody mkdir -m 0777 "$MNT/hpfilld"
as_nobody touch "$MNT/hpfilld/vm1"
refused "Cannot release 'vm1': $MNT/hpfilld belongs to user 'nobody' \(uid [0-9]+\), mode 0777: refused" --release vm1
[ -e "$MNT/hpfilld/vm1" ] || fail "--release removed a file from another user's directory"
expect_rc 0 "$HPFILLD" --once --dry-run --reserve "vm1:2M:4@$first"
[ "$(stat -c %U "$MNT/hpfilld")" = nobody ] || fail "--dry-run moved the user's directory"
expect_rc 0 "$HPFILLD" --once --reserve "vm1:2M:4@$first"
expect_in "$WORK/err" "$MNT/hpfilld was a directory of user 'nobody' \(uid [0-9]+\), mode 0777: moved aside"
aside=$(ls -d "$MNT"/hpfilld.moved.*)
[ "$(stat -c %U "$aside")" = nobody ] && [ -e "$aside/vm1" ] || fail "the user's directory was not kept as it was"
[ "$(stat -c %s "$aside/vm1")" = 0 ] || fail "the user's file was written"
"$HPFILLD" --release vm1 >/dev/null
rm -rf "$MNT"/hpfilld*

# root's, but others may write it
mkdir -m 0775 "$MNT/hpfilld"
moved "$MNT/hpfilld was a directory of user 'root' \(uid 0\), mode 0775" --once --reserve "vm1:2M:4@$first"

# a symlink in place of hpfilld/, to a directory of root's (some kernels' hugetlbfs makes no
# symlinks: EINVAL; test-reserve-dir covers these cases on a tmpfs then)
recorded
if as_nobody ln -s "$WORK/target" "$MNT/hpfilld" 2>/dev/null; then
        symlinks=yes
else
        symlinks=no
        echo "hugetlbfs here makes no symlinks: those cases skipped"
fi
[ $symlinks = no ] || {
refused "Cannot release 'vm1': $MNT/hpfilld is a symbolic link: refused" --release vm1
moved "$MNT/hpfilld was a symbolic link of user 'nobody' \(uid [0-9]+\), mode 0777" --once --reserve "vm1:2M:4@$first"
[ -z "$(ls -A "$WORK/target")" ] || fail "a reservation followed a symlink: $(ls -A "$WORK/target")"
}

# the happy path on the now clean mount, under umask 077: hpfilld/ is 0755, the file nobody's
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=4\nNode=%s\nOwner=nobody\n' \
        "$first" $((BASE + 8)) "$first" >"$WORK/r.conf"
(umask 077 && expect_rc 0 "$HPFILLD" --once --config "$WORK/r.conf")
[ "$(stat -c '%a %U' "$MNT/hpfilld")" = "755 root" ] || fail "hpfilld/: $(stat -c '%a %U' "$MNT/hpfilld")"
[ "$(stat -c '%a %U %s' "$MNT/hpfilld/vm1")" = "600 nobody $((8 << 20))" ] || fail "vm1: $(stat -c '%a %U %s' "$MNT/hpfilld/vm1")"
as_nobody test -r "$MNT/hpfilld/vm1" -a -w "$MNT/hpfilld/vm1" || fail "the owner cannot reach its reservation"

# a symlink in place of the file is replaced, not followed; --release does not remove one
if [ $symlinks = yes ]; then
        rm "$MNT/hpfilld/vm1"
        ln -s "$WORK/victim" "$MNT/hpfilld/vm1"
        refused "Cannot release 'vm1': $MNT/hpfilld/vm1 is not a regular file: refused" --release vm1
        [ -L "$MNT/hpfilld/vm1" ] || fail "--release removed a symlink"
fi
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$((BASE + 8))" --reserve "vm1:2M:4@$first"
[ -f "$MNT/hpfilld/vm1" ] && [ ! -L "$MNT/hpfilld/vm1" ] || fail "the symlink was not replaced by a file"
[ "$(cat "$WORK/victim")" = precious ] || fail "a reservation wrote through a symlink"
expect_rc 0 "$HPFILLD" --release vm1
[ ! -e "$MNT/hpfilld/vm1" ] || fail "vm1 still there"
echo PASS
