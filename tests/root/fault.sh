#!/bin/bash
# SPDX-License-Identifier: MIT
# The fault method on this kernel: 1 and 2 threads per node, counts per node as planned, every
# page of an empty pool faulted and adopted (none topped up by sysfs), no surplus left behind,
# nr_overcommit_hugepages put back on success and on interruption; free pages never faulted.
. "$(dirname "$0")/lib.sh"
need_test_hooks

n_nodes=$(echo $nodes | wc -w)
G=$HP/hugepages-2048kB

# checks that nothing of the fill is left but the pool: no surplus, overcommit as set before
clean_after() { # overcommit
        [ "$(cat $G/surplus_hugepages)" = 0 ] || fail "surplus pages left: $(cat $G/surplus_hugepages)"
        [ "$(cat $G/nr_overcommit_hugepages)" = "$1" ] ||
                fail "nr_overcommit_hugepages is $(cat $G/nr_overcommit_hugepages), expected $1"
        [ "$(cat $G/resv_hugepages)" = "$BASE_RESV" ] || fail "reserved pages left: $(cat $G/resv_hugepages), others reserve $BASE_RESV"
}

# (the targets on top of the pages others hold: BASE_ALL, BASE, BASE_FREE in lib.sh)
T=$((BASE_ALL + 60 * n_nodes))
for threads in 1 2; do
        pool2m_set 0
        echo 0 >$G/nr_overcommit_hugepages
        expect_rc 0 "$HPFILLD" --once --mode fault --threads-per-node $threads --pool 2M:$T
        expect_in "$WORK/out" "^2M pool: $T/$T pages on $n_nodes nodes? in [0-9]+ ms \(fault, $threads threads?/node\)$"
        # each node as planned: its line's target
        for n in $nodes; do
                planned=$(sed -n "s/^  node$n: [0-9]* -> [0-9]* (target \([0-9]*\))$/\1/p" "$WORK/out")
                [ "$(node_nr "$n" 2048)" = "$planned" ] || fail "$threads threads: node$n holds $(node_nr "$n" 2048), planned '$planned'"
        done
        [ "$(pool2m_nr)" = $T ] || fail "$threads threads: the pool holds $(pool2m_nr), expected $T"
        [ "$(cat $G/free_hugepages)" = $((BASE_FREE + 60 * n_nodes)) ] || fail "pages not free in the pool after the fill"
        clean_after 0
done

# threads chosen by the ramp: at least one, at most the node's CPUs, and said so
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --mode fault --pool "2M:node$first=$((BASE + 120))"
expect_in "$WORK/out" "^2M pool: $((BASE + 120))/$((BASE + 120)) pages on 1 node in [0-9]+ ms \(fault, [0-9]+ threads?/node, auto\)$"
used=$(sed -n 's/.*(fault, \([0-9]*\) thread.*/\1/p' "$WORK/out")
cpus=$(awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }' "$NODES/node$first/cpulist")
[ "$used" -ge 1 ] && [ "$used" -le "$cpus" ] || fail "auto used $used threads on a node of $cpus CPUs"
[ "$(node_nr "$first" 2048)" = $((BASE + 120)) ] || fail "auto: node$first holds $(node_nr "$first" 2048)"
clean_after 0

# an overcommit the admin set is put back as found; pages already there are kept
pool2m_set 10
echo 7 >$G/nr_overcommit_hugepages
expect_rc 0 "$HPFILLD" --once --mode fault -t 2 --pool "2M:node$first=$((BASE + 50))"
[ "$(node_nr "$first" 2048)" = $((BASE + 50)) ] || fail "node$first holds $(node_nr "$first" 2048), expected $((BASE + 50))"
clean_after 7
echo 0 >$G/nr_overcommit_hugepages

# interrupted after 3 chunks of 12 pages (100 pages, 1 worker: chunks of 100/8): the pages of
# whole chunks are kept, the rest goes back to the kernel; nothing else changes
pool2m_set 0
HPFILLD_TEST_INTERRUPT_AFTER_STEPS=3 expect_rc 1 "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool "2M:node$first=$((BASE + 100))"
expect_in "$WORK/err" "Interrupted by signal 2"
expect_in "$WORK/out" "^2M pool: $((BASE + 36))/$((BASE + 100)) pages on 1 node in [0-9]+ ms \(fault, 1 thread/node\), interrupted$"
[ "$(node_nr "$first" 2048)" = $((BASE + 36)) ] || fail "interrupted: node$first holds $(node_nr "$first" 2048), expected $((BASE + 36))"
clean_after 0

# 2 workers interrupted: whatever the count, it is what the report says and nothing leaks
pool2m_set 0
HPFILLD_TEST_INTERRUPT_AFTER_STEPS=2 expect_rc 1 "$HPFILLD_HOOKED" --once --mode fault -t 2 --pool "2M:node$first=$((BASE + 200))"
got=$(node_nr "$first" 2048)
expect_in "$WORK/out" "^2M pool: $got/$((BASE + 200)) pages"
[ "$got" -lt $((BASE + 200)) ] || fail "interrupted but complete"
clean_after 0

# a partly filled pool: a fault would take its free pages first (alloc_hugetlb_folio() dequeues
# them before it makes a surplus page) and zero them again, so the node that has some is grown by
# sysfs; paused at the first step, the pool still has all of its 32 free pages
pool2m_set 0
echo $((BASE + 32)) >"$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages"
FIFO="$WORK/fifo"
mkfifo "$FIFO"
HPFILLD_TEST_PAUSE_FIFO="$FIFO" HPFILLD_TEST_PAUSE_AFTER_STEPS=1 \
        "$HPFILLD_HOOKED" --once --mode fault -t 1 --pool "2M:node$first=$((BASE + 96))" >"$WORK/out" 2>"$WORK/err" &
hpid=$!
wait_paused "$FIFO"
free_mid=$(cat $G/free_hugepages)
echo go >"$FIFO"
rc=0
wait $hpid || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/out" "$WORK/err"; fail "the fill of a partly filled pool exited $rc"; }
[ "$free_mid" -ge $((BASE_FREE + 32)) ] || fail "the fault fill took the pool's free pages: $free_mid free during the fill"
expect_in "$WORK/out" "^2M pool: $((BASE + 96))/$((BASE + 96)) pages on 1 node in [0-9]+ ms \(fault, no page faulted\), 64 of them by sysfs$"
[ "$(node_nr "$first" 2048)" = $((BASE + 96)) ] || fail "node$first holds $(node_nr "$first" 2048), expected $((BASE + 96))"
clean_after 0

# free pages another's mapping holds reserved (untouched) are not the fault's to take: the node
# is still faulted (not left to sysfs as "no page faulted"), its reserved pages kept free for
# their owner
mount_huge
pool2m_set 0
echo $((BASE + 8)) >"$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages"
reserve_pages "$MNT/resv" 8
expect_rc 0 "$HPFILLD" --once --mode fault -t 1 --pool "2M:node$first=$((BASE + 8 + 64))"
expect_in "$WORK/out" "^2M pool: $((BASE + 72))/$((BASE + 72)) pages on 1 node in [0-9]+ ms \(fault, 1 thread/node\)$"
[ "$(node_nr "$first" 2048)" = $((BASE + 72)) ] || fail "node$first holds $(node_nr "$first" 2048), expected $((BASE + 72))"
[ "$(cat $G/resv_hugepages)" = $((BASE_RESV + 8)) ] || fail "the workload's 8 reserved pages: resv $(cat $G/resv_hugepages)"
reserve_release
clean_after 0

# the plan says fault, and why
expect_rc 0 "$HPFILLD" --once --mode fault --dry-run --pool 2M:$((BASE_ALL + 20))
expect_in "$WORK/out" " fault +[0-9]+ +"
expect_in "$WORK/out" "^2M: fault: asked for$"
echo PASS
