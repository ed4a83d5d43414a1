#!/bin/bash
# SPDX-License-Identifier: MIT
# How many writes a sysfs fill makes (strace counts them): each costs the kernel a fixed part
# (an RCU grace period under HVO), so a rest at most half as large again as the first write goes
# in that one write, and a longer fill writes once more. With HVO on (vm.hugetlb_optimize_vmemmap,
# put back as found) and off, --mode sysfs and auto; the first write made 16 pages by a test knob
# so that a small pool shows it. Asserts the writes and the counts, never a time.
command -v strace >/dev/null || { echo "SKIP: no strace (tools/setup.sh --test installs it)"; exit 77; }
. "$(dirname "$0")/lib.sh"
need_test_hooks

HVO=/proc/sys/vm/hugetlb_optimize_vmemmap
hvo_found=$(cat "$HVO" 2>/dev/null || echo none)
[ "$hvo_found" = none ] || EXTRA_CLEANUP='echo "$hvo_found" >"$HVO"'

# writes MODE PAGES: fills node $first from 0 to PAGES (on top of the pages others hold: BASE,
# lib.sh); sets $counts to the numbers written to the 2 MiB pool's nr_hugepages less BASE, in order
writes() {
        local mode=$1 pages=$2
        pool2m_set 0
        expect_rc 0 env HPFILLD_TEST_STEP_BYTES=$((16 * 2 * 1024 * 1024)) \
                env ASAN_OPTIONS="$STRACE_ASAN_OPTIONS" strace -f -qq -y -e trace=write -e signal=none -o "$WORK/trace" \
                "$HPFILLD_HOOKED" --once --mode "$mode" --pool "2M:node$first=$((BASE + pages))"
        [ "$(node_nr "$first" 2048)" = $((BASE + pages)) ] || fail "$mode $pages: node$first holds $(node_nr "$first" 2048)"
        counts=$(sed -n 's/.*hugepages-2048kB\/nr_hugepages>, "\([0-9]*\).*/\1/p' "$WORK/trace" | while read -r c; do
                echo $((c - BASE))
        done | tr '\n' ' ')
        echo "$mode $pages (HVO $(cat "$HVO" 2>/dev/null || echo n/a)): writes $counts"
}

check() { # mode pages expected-counts
        writes "$1" "$2"
        [ "$counts" = "$3" ] || { cat "$WORK/trace"; fail "$1 $2: wrote '$counts', expected '$3'"; }
}

for hvo in 1 0; do
        if [ "$hvo_found" = none ]; then
                [ "$hvo" = 1 ] && continue
        else
                pool2m_set 0 # HVO applies to the pages allocated after the switch
                echo "$hvo" >"$HVO"
        fi
        # 24 pages: one write (before, 16 then 24: a second grace period for 8 pages)
        check sysfs 24 "24 "
        check auto 24 "24 "
        # 40: the first write, then the rest, sized from the rate it showed
        check sysfs 40 "16 40 "
done
echo PASS
