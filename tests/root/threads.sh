#!/bin/bash
# SPDX-License-Identifier: MIT
# No thread to be had (TasksMax=, pids.max): the fill fails with that error, exit 1, and
# changes nothing; the daemon fails too instead of stopping with 0 and no READY=1.
. "$(dirname "$0")/lib.sh"

G=$HP/hugepages-2048kB

# a pids cgroup of our own: cgroup v2 where it has the pids controller, else v1's hierarchy
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw pids /sys/fs/cgroup/cgroup.controllers; then
        CG=/sys/fs/cgroup/hpfilld-test-$$
        grep -qw pids /sys/fs/cgroup/cgroup.subtree_control || echo +pids >/sys/fs/cgroup/cgroup.subtree_control
elif [ -f /sys/fs/cgroup/pids/pids.current ] || [ -f /sys/fs/cgroup/pids/cgroup.procs ]; then
        CG=/sys/fs/cgroup/pids/hpfilld-test-$$
else
        echo "SKIP: no pids cgroup controller"
        exit 77
fi
mkdir "$CG" || { echo "SKIP: cannot make a cgroup"; exit 77; }
EXTRA_CLEANUP="rmdir '$CG'"
# hpfilld alone may run in it: every pthread_create() fails with EAGAIN
echo 1 >"$CG/pids.max"

# in_cgroup CMD...: CMD as the only task of the cgroup. LeakSanitizer's check at exit needs a
# thread of its own, which the cgroup refuses: in the sanitizer builds it is off here.
in_cgroup() {
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
                sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"
}

# --once: two fault workers that cannot start
pool2m_set 0
before=$(snapshot)
# (on top of the pages others hold: BASE, lib.sh)
expect_rc 1 in_cgroup "$HPFILLD" --once --mode fault --threads-per-node 2 --pool "2M:node$first=$((BASE + 32))"
expect_in "$WORK/err" "Resource temporarily unavailable"
expect_in "$WORK/out" "^2M pool: $BASE/$((BASE + 32)) pages .*failed: pthread_create: Resource temporarily unavailable$"
if grep -q "Interrupted" "$WORK/err" "$WORK/out"; then fail "a thread that did not start was called an interruption"; fi
[ "$(snapshot)" = "$before" ] || fail "the failed fill changed the pools: $(diff <(echo "$before") <(snapshot))"

# the daemon: its fill fails with status 1 (it used to stop as if signalled, with status 0)
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" $((BASE + 16)) >"$WORK/d.conf"
echo 2 >"$CG/pids.max" # timeout(1) and hpfilld
expect_rc 1 in_cgroup timeout 60 "$HPFILLD" --config "$WORK/d.conf"
expect_in "$WORK/err" "Resource temporarily unavailable"
if grep -q "Interrupted" "$WORK/err"; then fail "the daemon took the failure for a signal"; fi
echo PASS
