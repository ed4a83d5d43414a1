#!/bin/bash
# SPDX-License-Identifier: MIT
# A workload holds surplus pages: they are not the pool (they leave it when the workload
# exits), so hpfilld counts them as missing and promotes them to persistent pages, as a write
# of nr_hugepages does, by both methods; the report says so; overcommit ends as found.
. "$(dirname "$0")/lib.sh"

G=$HP/hugepages-2048kB
# the pages persistent beyond the ones others hold (BASE_ALL, lib.sh)
persistent() { echo $(($(cat $G/nr_hugepages) - $(cat $G/surplus_hugepages) - BASE_ALL)); }
expect_persistent() { # pages what
        [ "$(persistent)" = "$1" ] || fail "$2: $(persistent) persistent pages (nr $(cat $G/nr_hugepages), surplus $(cat $G/surplus_hugepages)), expected $1"
}

# the issue's case: 50 surplus pages in use, a target of 50
pool2m_set 0
echo 100 >$G/nr_overcommit_hugepages
hold_pages 50
[ "$(cat $G/surplus_hugepages)" = 50 ] || fail "the workload's pages are not surplus"
expect_rc 0 "$HPFILLD" --once --dry-run --pool 2M:$((BASE_ALL + 50))
expect_in "$WORK/out" "^2M: node[0-9]+: [0-9]+ surplus pages in use, [0-9]+ to promote$"
expect_rc 0 "$HPFILLD" --once --pool 2M:$((BASE_ALL + 50))
expect_in "$WORK/out" "^2M pool: $((BASE_ALL + 50))/$((BASE_ALL + 50)) pages .*\(sysfs, 1 writer\)(, auto: .*)?, 50 surplus pages in use promoted$"
expect_persistent 50 "with the workload"
[ "$(cat $G/nr_overcommit_hugepages)" = 100 ] || fail "overcommit changed to $(cat $G/nr_overcommit_hugepages)"
hold_release
expect_persistent 50 "after the workload"
[ "$(cat $G/nr_hugepages)" = $((BASE_ALL + 50)) ] || fail "the pool holds $(cat $G/nr_hugepages) pages once the workload is gone"
[ "$(cat $G/free_hugepages)" = $((BASE_FREE + 50)) ] || fail "$(cat $G/free_hugepages) free pages once the workload is gone"

# more surplus than the target: only the target is promoted, the rest stays surplus
pool2m_set 0
hold_pages 80
expect_rc 0 "$HPFILLD" --once --pool 2M:$((BASE_ALL + 50))
expect_in "$WORK/out" "^2M pool: $((BASE_ALL + 50))/$((BASE_ALL + 50)) pages .*, 50 surplus pages in use promoted$"
expect_persistent 50 "80 held, 50 wanted"
[ "$(cat $G/surplus_hugepages)" = 30 ] || fail "$(cat $G/surplus_hugepages) surplus pages, expected 30"
hold_release
[ "$(cat $G/nr_hugepages)" = $((BASE_ALL + 50)) ] || fail "80 held: the pool holds $(cat $G/nr_hugepages) pages afterwards"

# the fault method: 30 surplus promoted, 30 new pages faulted; overcommit put back
pool2m_set 0
echo 40 >$G/nr_overcommit_hugepages
hold_pages 30
# 30 new pages, 1 worker: 10 chunks of 3, 10 steps. The adoption promotes the workload's 30
# pages with the faulted ones; had it left them surplus, the faulted pages would go back to
# the kernel when unmapped (the node still holds surplus) and the sysfs top-up would write
# (an 11th step, the hook's SIGINT, exit 1) to allocate them again.
HPFILLD_TEST_INTERRUPT_AFTER_STEPS=11 expect_rc 0 "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool 2M:$((BASE_ALL + 60))
expect_in "$WORK/out" "^2M pool: $((BASE_ALL + 60))/$((BASE_ALL + 60)) pages .*\(fault, 1 thread/node\), 30 surplus pages in use promoted$"
expect_persistent 60 "fault with the workload"
[ "$(cat $G/surplus_hugepages)" = 0 ] || fail "fault: $(cat $G/surplus_hugepages) surplus pages left"
[ "$(cat $G/free_hugepages)" = $((BASE_FREE + 30)) ] || fail "fault: $(cat $G/free_hugepages) free pages, the 30 new ones expected"
[ "$(cat $G/nr_overcommit_hugepages)" = 40 ] || fail "fault: overcommit $(cat $G/nr_overcommit_hugepages), expected 40"
hold_release
[ "$(cat $G/nr_hugepages)" = $((BASE_ALL + 60)) ] || fail "fault: the pool holds $(cat $G/nr_hugepages) pages afterwards"

# the fault method with nothing to fault: every missing page is a surplus one
pool2m_set 0
hold_pages 20
expect_rc 0 "$HPFILLD" --once --mode fault --pool 2M:$((BASE_ALL + 20))
expect_in "$WORK/out" "^2M pool: $((BASE_ALL + 20))/$((BASE_ALL + 20)) pages .*, 20 surplus pages in use promoted$"
expect_persistent 20 "fault, all surplus"
[ "$(cat $G/nr_overcommit_hugepages)" = 40 ] || fail "fault, all surplus: overcommit $(cat $G/nr_overcommit_hugepages)"
hold_release
[ "$(cat $G/nr_hugepages)" = $((BASE_ALL + 20)) ] || fail "fault, all surplus: the pool holds $(cat $G/nr_hugepages) pages afterwards"
echo PASS
