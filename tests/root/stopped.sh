#!/bin/bash
# SPDX-License-Identifier: MIT
# A root test stopped half way leaves the host as found. Each of a few tests, run as a process
# group of its own (as meson and a terminal run it), is stopped at one of its checkpoints
# (lib.sh's checkpoint, ROOT_TEST_STOP=NAME:HOW) with the most of the host in its hands: by
# SIGTERM to its process group (meson's timeout sends that), by SIGINT (^C), or by a failure
# there (notify.py failing with its daemon running and its reservation made). Then it exited as
# stopped, nothing it started runs, and the pools (global and per node: pages, free, surplus,
# reserved, overcommit), the hugetlbfs mounts, the reservations, /run/hpfilld and HVO are as
# they were before it, its directory in /tmp gone.
. "$(dirname "$0")/lib.sh"
command -v setsid >/dev/null || { echo "SKIP: no setsid (util-linux)"; exit 77; }

# host: what a root test must leave as found, as this test sees it (as-found.sh), and the root
# tests' directories in /tmp
host() {
        snapshot
        hugetlbfs_mounts
        reservation_files
        state_listing
        hvo_now
        ls -d /tmp/hpfilld-root-test.* 2>/dev/null || true
}

# stopped TEST CHECKPOINT:HOW STATUS: TEST (tests/root/TEST.sh) in a session of its own, stopped
# at CHECKPOINT; it must exit STATUS, and leave the host as it was before it
stopped() {
        local t=$1 how=$2 want=$3 rc=0 sid
        host >"$WORK/before"
        setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$WORK/sid" env ROOT_TEST_STOP="$how" \
                "$SOURCE_ROOT/tests/root/$t.sh" >"$WORK/out" 2>&1 || rc=$?
        sid=$(cat "$WORK/sid")
        [ "$rc" = "$want" ] || { cat "$WORK/out"; fail "$t, stopped at $how: exit $rc, expected $want"; }
        case $how in *:fail) expect_in "$WORK/out" "stopped at checkpoint ${how%%:*} \(ROOT_TEST_STOP\)" ;; esac
        ! grep -q "NOT AS FOUND" "$WORK/out" || { cat "$WORK/out"; fail "$t, stopped at $how: its cleanup found the host changed"; }
        # (one that ended, its parent gone before it, waits for init as a zombie: it runs no more)
        ps -e -o pid=,sid=,stat=,args= | awk -v s="$sid" '$2 == s && $3 !~ /^Z/' >"$WORK/left"
        [ ! -s "$WORK/left" ] || { cat "$WORK/left"; fail "$t, stopped at $how: its processes still run (above)"; }
        host >"$WORK/after"
        cmp -s "$WORK/before" "$WORK/after" ||
                { diff "$WORK/before" "$WORK/after"; fail "$t, stopped at $how, left the host other than it was (above)"; }
        echo "ok: $t stopped at $how: exit $rc, nothing of it left"
}

# a hugetlbfs mount, a workload reserving 30 of its pages, the pool 40 pages larger
stopped reserve-others reserved:TERM 143
# two fills, the first paused mid-fill holding the host lock, its reservation of 30 pages made
stopped lock-checks waiting:INT 130
# a fault fill paused mid-fill: the overcommit raised, its setting in /run/hpfilld/state
stopped journal paused:TERM 143
# /sys and /proc bind-mounted below the test's directory, a daemon running with ReleaseOnStop=
stopped release daemon:INT 130
# tmpfs on /run/hpfilld and /run/hpfilld.conf.d, the daemon running beside two claims
stopped claim daemon:TERM 143
# notify.py fails with its daemon running and the daemon's reservation made
stopped daemon reserved:fail 1
echo PASS
