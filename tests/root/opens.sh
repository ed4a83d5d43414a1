#!/bin/bash
# SPDX-License-Identifier: MIT
# What a plain --once fill opens on this kernel (issue 22: beyond the kernel's write, a run costs
# what it opens, some 10 us a file in a fresh process here): no file twice that the run can keep
# open, and none its plan does not need. Each case fills, so each asserts the fill as well. The
# zoneinfo case tells only on a host whose nodes' counts lag /proc/meminfo (this project's does).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || { echo "SKIP: no strace (tools/setup.sh --test installs it)"; exit 77; }

# traced_fill N: hpfilld --once --pool 2M:N under strace; its opens below the root (openat2, as
# every open of hpfilld's below --root is: a sanitizer's runtime opens with openat) in
# $WORK/opens, one relative path a line
traced_fill() {
        pool2m_set 0
        # (on top of the pages others hold: BASE_ALL, lib.sh)
        expect_rc 0 env ASAN_OPTIONS="$STRACE_ASAN_OPTIONS" strace -f -qq -e trace=openat2 -o "$WORK/trace" \
                "$HPFILLD" --once --pool "2M:$((BASE_ALL + $1))"
        [ "$(pool2m_nr)" = $((BASE_ALL + $1)) ] || fail "--pool 2M:$((BASE_ALL + $1)) under strace left $(pool2m_nr) pages"
        sed -n 's/^\([0-9]* *\)\?openat2([0-9]*, "\([^"]*\)".*/\2/p' "$WORK/trace" >"$WORK/opens"
        [ -s "$WORK/opens" ] || fail "no openat2() in the trace of hpfilld --once: $(head -5 "$WORK/trace")"
}

# opened PATH TIMES WHY: PATH (relative to the root) was opened TIMES times
opened() {
        local n
        n=$(grep -cxF "$1" "$WORK/opens" || true)
        [ "$n" = "$2" ] || fail "$1 opened $n times by hpfilld --once, expected $2: $3"
}

# run/hpfilld and its lock as every fill but a boot's first finds them
expect_rc 0 "$HPFILLD" --once -q --pool 2M:$((BASE_ALL + 8))
traced_fill 8
# this boot's id, for the state's boot line: read once
opened proc/sys/kernel/random/boot_id 1 "the state of one run is of one boot"
# the pools' counters, kept open after their first read and read again from there
for size in 2048 1048576; do
        [ -d "$HP/hugepages-${size}kB" ] || continue
        opened "sys/kernel/mm/hugepages/hugepages-${size}kB/resv_hugepages" 1 "kept as the counters are"
done
# HVO, which Mode=auto's measurement weighs: as read before the plan, a moment earlier
[ -e /proc/sys/vm/hugetlb_optimize_vmemmap ] &&
        opened proc/sys/vm/hugetlb_optimize_vmemmap 1 "read before the plan, not again when measured"
# a NUMA kernel's node directory: its online file read, the directory not opened on its own
[ -e /sys/devices/system/node/online ] &&
        opened sys/devices/system/node 0 "sys/devices/system/node/online there: no question whether the directory is"
# (not a cut: kept as it was) the lock's file once, below run/hpfilld; the holder's line is
# written through the fd that holds it
opened run/hpfilld/host.lock 0 "opened below run/hpfilld, not from the root"
[ "$(grep -cxF host.lock "$WORK/opens" || true)" = 1 ] || fail "host.lock opened $(grep -cxF host.lock "$WORK/opens" || true) times"

if [ "$(echo $nodes | wc -w)" = 1 ]; then
        # one node with memory: what no node counts (memory initialised lazily) is its own, and a
        # cpuset always holds it
        opened proc/zoneinfo 0 "one node with memory: no node to tell apart"
        opened proc/self/status 0 "one node with memory: the cpuset holds it"
else
        echo "several nodes with memory ($nodes): zoneinfo and the cpuset are theirs to read, not checked"
fi
echo PASS
