#!/bin/bash
# SPDX-License-Identifier: MIT
# Mode=auto measures on this kernel: with HVO on (vm.hugetlb_optimize_vmemmap=1, put back as
# found) it picks sysfs and says both rates, also where init_on_alloc=1 is shown to it on the
# kernel command line (a private mount namespace); with HVO off it measures too. Counts as asked,
# nothing left behind (surplus, reservations, overcommit).
. "$(dirname "$0")/lib.sh"
need_test_hooks

HVO=/proc/sys/vm/hugetlb_optimize_vmemmap
[ -w "$HVO" ] || { echo "SKIP: no writable $HVO on this kernel"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
hvo_found=$(cat "$HVO")
EXTRA_CLEANUP='echo "$hvo_found" >"$HVO"'
G=$HP/hugepages-2048kB
oc=$(cat $G/nr_overcommit_hugepages)

clean_after() {
        [ "$(cat $G/surplus_hugepages)" = 0 ] || fail "surplus pages left: $(cat $G/surplus_hugepages)"
        [ "$(cat $G/resv_hugepages)" = 0 ] || fail "reserved pages left: $(cat $G/resv_hugepages)"
        [ "$(cat $G/nr_overcommit_hugepages)" = "$oc" ] || fail "nr_overcommit_hugepages is $(cat $G/nr_overcommit_hugepages)"
}

# auto on 120 pages, starting from @1 pages in the pool; the rest of the command line after it.
# The test knobs make it probe fault on a fill this small, in steps of 40 pages.
fill_auto() {
        local from=$1
        shift
        pool2m_set "$from"
        expect_rc 0 env HPFILLD_TEST_PROBE_ALWAYS=1 HPFILLD_TEST_STEP_PAGES=40 "$@" --once --pool 2M:120
        [ "$(pool2m_nr)" = 120 ] || fail "the pool holds $(pool2m_nr), expected 120"
        clean_after
}

rate='[0-9]+ pages/s'
echo 1 >"$HVO"
fill_auto 0 "$HPFILLD_HOOKED"
expect_in "$WORK/out" "^2M pool: 120/120 pages on [0-9]+ nodes? in [0-9]+ ms \(sysfs, 1 writer\), auto: measured sysfs $rate, fault $rate: sysfs [0-9.]+x as fast$"
# a pool with free pages already: the probe faults new pages, the free ones stay free
fill_auto 30 "$HPFILLD_HOOKED"
expect_in "$WORK/out" "auto: measured sysfs $rate, fault $rate: sysfs"

# init_on_alloc=1 shown on the command line: the rule would fault; the measurement says sysfs
printf 'init_on_alloc=1 %s\n' "$(cat /proc/cmdline)" >"$WORK/cmdline"
fill_auto 0 unshare -m sh -c 'mount --bind "$0" /proc/cmdline && exec "$@"' "$WORK/cmdline" "$HPFILLD_HOOKED"
expect_in "$WORK/out" "auto: measured sysfs $rate, fault $rate: sysfs"

# fault asked for under HVO: faulted as asked, and a warning with both rates
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --mode fault -t 1 --pool 2M:120
expect_in "$WORK/out" "^2M pool: 120/120 pages on [0-9]+ nodes? in [0-9]+ ms \(fault, 1 thread/node\)$"
expect_in "$WORK/err" "2M pool: --mode fault \(Mode=fault\) measured $rate here, sysfs $rate: [0-9]+x slower; Mode=auto would pick sysfs"
clean_after

# HVO off: measured as well (this kernel does not zero at allocation: sysfs again)
echo 0 >"$HVO"
fill_auto 0 "$HPFILLD_HOOKED"
expect_in "$WORK/out" "auto: measured sysfs $rate, fault $rate: sysfs"

# fault asked for without HVO: as asked, not measured, no warning
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --mode fault -t 1 --pool 2M:120
if grep -q "would pick sysfs" "$WORK/err"; then fail "a warning where HVO is off"; fi
clean_after

# without the knobs a small fill is not worth a fault probe, and says so
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --pool 2M:120
expect_in "$WORK/out" "auto: sysfs measured at $rate, fault not probed"
[ "$(pool2m_nr)" = 120 ] || fail "the pool holds $(pool2m_nr), expected 120"
clean_after
[ "$(cat "$HVO")" = 0 ] || fail "HVO changed by hpfilld"
# hpfilld status shows the last fill's measurement and the kernel it was made on
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^  2M pool: 120/120 pages .*auto: sysfs measured at $rate"
expect_in "$WORK/out" "^  Measured on Linux $(uname -r): HVO off, init_on_alloc (on|off) \\(from: (kernel command line|/boot/config|unknown)\\)$"
