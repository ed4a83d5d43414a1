#!/bin/bash
# SPDX-License-Identifier: MIT
# Least privilege per command: status, bench and --release give up what they do not need before
# they open the first file of the root (strace shows the capset() before it); with a tree of
# nobody's (mode 0700) as the neighbour's, --release, which keeps no capability, cannot read it,
# where root with every capability would. Changes no pool.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }

# the neighbour's tree: a mount table naming no mount, all of it nobody's and closed to others
tree=$WORK/tree
mkdir -p "$tree/proc/self" "$tree/run/hpfilld"
: >"$tree/proc/self/mounts"
chown -R nobody: "$tree"
chmod -R go-rwx "$tree"
chmod 0755 "$WORK"

# traced CMD...: strace of the command's capset() and opens, in $WORK/trace
traced() {
        set +e
        ASAN_OPTIONS="$STRACE_ASAN_OPTIONS" strace -f -qq -e trace=capset,openat,openat2 -o "$WORK/trace" "$@" >"$WORK/out" 2>"$WORK/err"
        rc=$?
        set -e
}
# dropped_first WHAT WANT: the first capset() leaves effective=WANT and comes before any open
# below the root (a relative path opened from the root's descriptor)
dropped_first() {
        local first
        first=$(grep -n -m1 'capset(' "$WORK/trace" | cut -d: -f1)
        [ -n "$first" ] || { cat "$WORK/trace"; fail "$1: no capset()"; }
        sed -n "${first}p" "$WORK/trace" | grep -qF "effective=$2," ||
                fail "$1 keeps $(sed -n "${first}p" "$WORK/trace"), expected effective=$2"
        if head -n "$first" "$WORK/trace" | grep -E 'openat2?\([0-9]+, "(run|proc|sys|dev)/' | grep .; then
                fail "$1 opened files below the root before it dropped its capabilities"
        fi
        echo "ok: $1: $(sed -n "${first}p" "$WORK/trace" | sed 's/.*}, {\(effective=[^,]*\),.*/\1/')"
}

traced "$HPFILLD" status --root "$tree"
dropped_first status "1<<CAP_DAC_READ_SEARCH|1<<CAP_LEASE"

traced "$HPFILLD" --root "$tree" --release vm1
dropped_first --release 0
[ "$rc" = 1 ] || fail "--release in nobody's tree exited $rc, expected 1"
# (it reads the machine, then the state under the host lock, before it looks for the files)
expect_in "$WORK/err" "Cannot read the machine's topology: $tree/sys/devices/system/node: cannot open: Permission denied"
echo "ok: --release cannot read the neighbour's tree: $(cat "$WORK/err")"
# root with its capabilities reads it: what the drop took away
cat "$tree/proc/self/mounts" >/dev/null || fail "root cannot read $tree/proc/self/mounts"

# bench: the root's first file is /sys of the tree; an empty tree makes it stop there
traced "$HPFILLD" bench --root "$tree"
dropped_first bench 0
echo PASS
