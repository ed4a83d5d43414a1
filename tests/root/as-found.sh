# SPDX-License-Identifier: MIT
# The host as a root test found it (sourced by lib.sh): saved at the start, put back however the
# test ends (lib.sh's trap), and compared at the end, a difference failing the test. Others on
# this host use the pools while the suite runs (a workload mapping pages of a hugetlbfs mount of
# its own, a reservation, surplus pages), so nothing here assumes an empty pool: the test starts
# from the pages others hold, and what it asserts is counted from there (BASE, BASE_ALL).

# Every counter and knob of every pool, global and per node: what each test must leave as found.
pool_files() {
        for f in "$HP"/hugepages-*/nr_hugepages "$HP"/hugepages-*/nr_overcommit_hugepages; do
                echo "$f"
        done
        if [ -d "$NODES/node0" ]; then
                for f in "$NODES"/node*/hugepages/hugepages-*/nr_hugepages; do
                        echo "$f"
                done
        fi
}

# A snapshot of all pool counters, to compare byte for byte.
snapshot() {
        for f in $(pool_files) "$HP"/hugepages-*/free_hugepages "$HP"/hugepages-*/surplus_hugepages \
                "$HP"/hugepages-*/resv_hugepages; do
                printf '%s=%s\n' "$f" "$(cat "$f")"
        done
}

# pool_value FILE: what restore_pools puts back of FILE: an nr_hugepages file's persistent pages
# (nr_hugepages counts the surplus pages too: a workload's surplus pages, made persistent by a
# write of the pool, are made surplus again by a write of the persistent count), else its value
pool_value() {
        case $1 in
        */nr_hugepages) echo $(($(cat "$1") - $(cat "${1%/*}/surplus_hugepages"))) ;;
        *) cat "$1" ;;
        esac
}

save_pools() {
        : >"$SAVED"
        for f in $(pool_files); do
                printf '%s %s\n' "$f" "$(pool_value "$f")" >>"$SAVED"
        done
}

restore_pools() {
        # per-node counts first, then global ones; each pool back to what it held (only what
        # changed is written: the kernel refuses any write of a gigantic pool's overcommit)
        if [ -d "$NODES/node0" ]; then
                grep "^$NODES" "$SAVED" | while read -r f v; do
                        [ "$(pool_value "$f")" = "$v" ] || echo "$v" >"$f" || true
                done
        fi
        grep -v "^$NODES" "$SAVED" | while read -r f v; do
                [ "$(pool_value "$f")" = "$v" ] || echo "$v" >"$f" || true
        done
}

# the hugetlbfs mounts of this mount namespace, one a line
hugetlbfs_mounts() {
        LC_ALL=C awk '$3 == "hugetlbfs" { print $2 }' /proc/self/mounts
}

# what the hpfilld/ directories of those mounts hold: reservations, hpfilld's or anyone's
reservation_files() {
        local m
        hugetlbfs_mounts | while read -r m; do
                [ -d "$m/hpfilld" ] || continue
                find "$m/hpfilld" -mindepth 1 -maxdepth 1 2>/dev/null | LC_ALL=C sort
        done
}

# hpfilld's run directory (the state, the host lock, the control socket): what
# /run/hpfilld holds, each entry with its type and, for a file, its contents' checksum
STATE=/run/hpfilld
HVO_KNOB=/proc/sys/vm/hugetlb_optimize_vmemmap
hvo_now() { cat "$HVO_KNOB" 2>/dev/null || true; }
state_listing() {
        [ -d "$STATE" ] || return 0
        (cd "$STATE" && LC_ALL=C find . -mindepth 1 -maxdepth 1 -printf '%P %y\n' | sort |
                while read -r name type; do
                        if [ "$type" = f ]; then
                                echo "$name f $(cksum <"$name")"
                        else
                                echo "$name $type"
                        fi
                done)
}

# found_save: the host as found, in $FOUND; the test then starts from no state in /run/hpfilld
# (another's owners would be the test's commands' to give back, a killed command's intents and
# settings theirs to settle), the lock files kept
found_save() {
        FOUND=$WORK/found
        mkdir "$FOUND" "$FOUND/state.files"
        # a control socket no daemon listens on (one an earlier version's daemon left when it
        # ended) is nothing to put back: a daemon the test starts removes it, as a daemon of this
        # version removes its own
        if [ -S "$STATE/control" ] && ! python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).connect(sys.argv[1])' "$STATE/control" 2>/dev/null; then
                rm -f "$STATE/control"
        fi
        snapshot >"$FOUND/pools"
        hugetlbfs_mounts >"$FOUND/mounts"
        reservation_files >"$FOUND/reservations"
        state_listing >"$FOUND/state"
        hvo_now >"$FOUND/hvo"
        if [ -d "$STATE" ]; then
                : >"$FOUND/state.existed"
                find "$STATE" -mindepth 1 -maxdepth 1 -type f -exec cp -p {} "$FOUND/state.files/" \;
                find "$STATE" -mindepth 1 -maxdepth 1 -type f ! -name '*.lock' -delete
        fi
}

# found_start: the 2 MiB pool down to the pages others hold (in use, or free and reserved by a
# mapping): the free pages nobody reserved are let go (put back at the end), a workload's surplus
# pages made persistent, so that a fill starts where it would on an empty pool: its pages are
# its own, and none of another's is surplus (a fill would promote them, and say so). What is left
# is the test's zero:
#   BASE       pages of node $first        BASE_ALL   pages of all nodes
#   BASE_FREE  free pages (others' reserved ones)      BASE_RESV  resv_hugepages
# (node_base and node_base_free for each node)
found_start() {
        local g=$HP/hugepages-2048kB n d
        echo $(($(cat $g/nr_hugepages) - $(cat $g/free_hugepages) + $(cat $g/resv_hugepages))) >$g/nr_hugepages
        for n in $nodes; do
                d=$NODES/node$n/hugepages/hugepages-2048kB
                [ -d "$d" ] || continue
                cat "$d/nr_hugepages" >"$FOUND/base.$n"
                cat "$d/free_hugepages" >"$FOUND/base-free.$n"
        done
        BASE_ALL=$(cat $g/nr_hugepages)
        BASE=$(node_base "$first")
        BASE_FREE=$(cat $g/free_hugepages)
        BASE_RESV=$(cat $g/resv_hugepages)
        [ "$(cat $g/surplus_hugepages)" = 0 ] || fail "$(cat $g/surplus_hugepages) surplus pages left after the pool was set to what others hold"
}

# node_base NODE, node_base_free NODE: the 2M pages, the free ones, others hold on NODE
node_base() { cat "$FOUND/base.$1" 2>/dev/null || echo "$BASE_ALL"; }
node_base_free() { cat "$FOUND/base-free.$1" 2>/dev/null || echo "$BASE_FREE"; }

# state_restore: /run/hpfilld as found: what the test added or changed goes, what was found
# comes back (a file the test left as it was stays: the same inode)
state_restore() {
        local name type f
        # a test in a mount namespace of its own that mounted a state of its own over the host's
        # (a tmpfs) and did not unmount it: what is put back must reach the host's directory,
        # not that mount, which goes with the namespace (and the check below must see the host's)
        if [ -n "${IN_OWN_MOUNT_NS:-}" ]; then
                while mountpoint -q "$STATE"; do
                        umount "$STATE" 2>/dev/null || umount -l "$STATE" || break
                done
        fi
        [ -d "$STATE" ] || return 0
        if [ ! -e "$FOUND/state.existed" ]; then
                rm -rf --one-file-system "$STATE"
                return 0
        fi
        state_listing | while read -r name type _; do
                if [ "$type" = f ]; then
                        ! grep -qxF "$name f $(cksum <"$STATE/$name")" "$FOUND/state" || continue
                else
                        ! grep -qxF "$name $type" "$FOUND/state" || continue
                fi
                rm -rf --one-file-system "${STATE:?}/$name"
        done
        find "$FOUND/state.files" -mindepth 1 -maxdepth 1 -type f | while read -r f; do
                [ -e "$STATE/${f##*/}" ] || cp -p "$f" "$STATE/"
        done
}

# hvo_restore: vm.hugetlb_optimize_vmemmap as found (auto.sh and the benches switch it)
hvo_restore() {
        [ -s "$FOUND/hvo" ] && [ "$(hvo_now)" != "$(cat "$FOUND/hvo")" ] || return 0
        cat "$FOUND/hvo" >"$HVO_KNOB"
}

# the mounts below $WORK (hugetlbfs, /sys and /proc bound into a tree for --root, tmpfs)
mounts_below_work() {
        LC_ALL=C awk -v w="$WORK/" 'index($2, w) == 1 { print $2 }' /proc/self/mounts
}

# umount_leftovers: what the test mounted below $WORK and did not unmount (a test that failed or
# was stopped half way), the deepest first; a mount still busy is detached
umount_leftovers() {
        local m
        mounts_below_work | sort -r | while read -r m; do
                umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
        done
}

# reservations_remove: files the test's fills made in the hpfilld/ directory of a mount that
# was there before it (not the test's own: those went with their mount)
reservations_remove() {
        local f
        reservation_files | while read -r f; do
                grep -qxF "$f" "$FOUND/reservations" || rm -rf --one-file-system "$f"
        done
}

# as_found NAME WHAT CMD...: 0 where CMD says now what it said at the start ($FOUND/NAME), else 1
# and the difference
as_found() {
        local name=$1 what=$2
        shift 2
        "$@" >"$WORK/left.$name"
        cmp -s "$FOUND/$name" "$WORK/left.$name" && return 0
        echo "NOT AS FOUND: $what:"
        diff "$FOUND/$name" "$WORK/left.$name"
        return 1
}

# found_check: 0 where the host is as found (pools, mounts, reservations, /run/hpfilld, HVO),
# else 1, each difference said
found_check() {
        local ok=0
        as_found pools "the pools" snapshot || ok=1
        as_found mounts "the hugetlbfs mounts" hugetlbfs_mounts || ok=1
        as_found reservations "the reservations" reservation_files || ok=1
        as_found state "$STATE" state_listing || ok=1
        as_found hvo "vm.hugetlb_optimize_vmemmap" hvo_now || ok=1
        mounts_below_work >"$WORK/left.below"
        [ ! -s "$WORK/left.below" ] || { echo "NOT AS FOUND: mounts left below $WORK:"; cat "$WORK/left.below"; ok=1; }
        return $ok
}
