#!/bin/bash
# SPDX-License-Identifier: MIT
# Mode=auto measures on this kernel: with HVO on (vm.hugetlb_optimize_vmemmap=1, put back as
# found) it measures both methods and fills with the one it names, saying both rates, also where
# init_on_alloc=1 is shown to it on the kernel command line (a private mount namespace); with HVO
# off it measures too. Which method wins is the host's timing (sysfs on a quiet host, fault where a
# loaded one made every sysfs write wait), so the tests assert the choice as said and as made,
# never which one. Counts as asked,
# nothing left behind (surplus, reservations, overcommit). No page is held from a workload: with
# free pages in the pool fault is not probed, and a workload mapping pages all through a forced
# probe gets every one.
. "$(dirname "$0")/lib.sh"
need_test_hooks

HVO=/proc/sys/vm/hugetlb_optimize_vmemmap
[ -w "$HVO" ] || { echo "SKIP: no writable $HVO on this kernel"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
hvo_found=$(cat "$HVO")
EXTRA_CLEANUP='echo "$hvo_found" >"$HVO"'
G=$HP/hugepages-2048kB
oc=$(cat $G/nr_overcommit_hugepages)
# the target on top of the pages others hold (BASE_ALL, lib.sh)
T=$((BASE_ALL + 120))

clean_after() {
        [ "$(cat $G/surplus_hugepages)" = 0 ] || fail "surplus pages left: $(cat $G/surplus_hugepages)"
        [ "$(cat $G/resv_hugepages)" = "$BASE_RESV" ] || fail "reserved pages left: $(cat $G/resv_hugepages), others reserve $BASE_RESV"
        [ "$(cat $G/nr_overcommit_hugepages)" = "$oc" ] || fail "nr_overcommit_hugepages is $(cat $G/nr_overcommit_hugepages)"
}

# auto on 120 pages (above what others hold), starting from @1 pages in the pool; the rest of
# the command line after it. The test knobs make it probe fault on a fill this small, in steps
# of 40 pages.
fill_auto() {
        local from=$1
        shift
        pool2m_set "$from"
        expect_rc 0 env HPFILLD_TEST_PROBE_ALWAYS=1 HPFILLD_TEST_STEP_PAGES=40 "$@" --once --pool 2M:$T
        [ "$(pool2m_nr)" = $T ] || fail "the pool holds $(pool2m_nr), expected $T"
        clean_after
}

rate='[0-9]+ pages/s'
# expect_measured: the 2M pool's line in $WORK/out says both measured rates and the method
# chosen, and the pool was filled by that method (the choice itself, from rates, write costs and
# the preferred method's margin, is tests/unit/test-choose.c's)
expect_measured() {
        local line m
        line=$(grep -E "^ *2M pool: .*auto: measured (sysfs|fault) $rate, (sysfs|fault) $rate: (sysfs|fault) [0-9.]+x as fast$" \
                "$WORK/out") || { cat "$WORK/out"; fail "no measured choice on the 2M pool's line in $WORK/out"; }
        m=$(echo "$line" | sed -E 's/.*auto: measured ([a-z]+) .*/\1/')
        case $line in
        *"($m, "*"), auto: measured $m "*": $m "*) ;;
        *) fail "auto names $m but filled otherwise: $line" ;;
        esac
}
echo 1 >"$HVO"
fill_auto 0 "$HPFILLD_HOOKED"
expect_measured
# a pool with free pages already: a fault would take them before it made new ones, so fault
# is not probed, and no page is held from anyone: a workload that keeps mapping 1 to 16 of the
# 30 free pages (tests/root/map-loop.py) gets every one it asks for, all through the forced probe
pool2m_set 30
coproc LOOP { python3 "$SOURCE_ROOT/tests/root/map-loop.py" 16; }
loop_pid=$LOOP_PID
read -r line <&"${LOOP[0]}" || true
[ "$line" = mapping ] || fail "the workload could not map: '$line'"
expect_rc 0 env HPFILLD_TEST_PROBE_ALWAYS=1 HPFILLD_TEST_STEP_PAGES=40 "$HPFILLD_HOOKED" --once --pool 2M:$T
echo >&"${LOOP[1]}"
read -r line <&"${LOOP[0]}" || true
wait "$loop_pid" || true
case $line in "rounds "*" failed 0") ;; *) fail "the workload's requests failed during the fill: '$line'" ;; esac
expect_in "$WORK/out" "auto: sysfs measured at $rate, fault not probed: the pool has free pages a fault would take"
[ "$(pool2m_nr)" = $T ] || fail "the pool holds $(pool2m_nr), expected $T"
clean_after
echo "ok: free pages found: fault not probed, the workload's $line"
# deterministic: the fill paused in its probe (a test hook, after its second step: under the
# old design inside the fault step, the free pages held), a workload maps every free page that
# no mapping has reserved; it gets them all
pool2m_set 30
        mkfifo "$WORK/probe.fifo"
        HPFILLD_TEST_PAUSE_FIFO="$WORK/probe.fifo" HPFILLD_TEST_PAUSE_AFTER_STEPS=2 HPFILLD_TEST_PROBE_ALWAYS=1 \
                HPFILLD_TEST_STEP_PAGES=40 "$HPFILLD_HOOKED" --once --pool 2M:$T >"$WORK/probe.out" 2>&1 &
        probe_pid=$!
        wait_paused "$WORK/probe.fifo" "the fill paused in its probe"
        want=$(($(cat $G/free_hugepages) - $(cat $G/resv_hugepages)))
        [ "$want" -ge 30 ] || fail "the paused fill holds free pages: $(cat $G/free_hugepages) free, $(cat $G/resv_hugepages) reserved"
        python3 - "$want" <<'PY' || fail "with the fill paused in its probe, the workload could not map the $want free pages"
import mmap, sys
n, size = int(sys.argv[1]), 2 << 20
m = mmap.mmap(-1, n * size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40000 | (21 << 26))
for i in range(n):
    m[i * size] = 7
PY
        fifo_go "$WORK/probe.fifo"
        wait "$probe_pid" || { cat "$WORK/probe.out"; fail "the paused fill failed"; }
        [ "$(pool2m_nr)" = $T ] || fail "the pool holds $(pool2m_nr), expected $T"
        clean_after
        echo "ok: the fill paused in its probe, a workload maps all $want free pages"
# an empty pool: the probe faults (the free pages it meets are the fill's own), and a workload
# holding pages mapped keeps them
pool2m_set 8
hold_pages 8
fill_auto_keep() { # as fill_auto, from the pool as it is
        expect_rc 0 env HPFILLD_TEST_PROBE_ALWAYS=1 HPFILLD_TEST_STEP_PAGES=40 "$@" --once --pool 2M:$T
        [ "$(pool2m_nr)" = $T ] || fail "the pool holds $(pool2m_nr), expected $T"
}
fill_auto_keep "$HPFILLD_HOOKED"
expect_measured
hold_release
clean_after
echo "ok: no free pages found: fault probed, the workload's pages intact"

# init_on_alloc=1 shown on the command line: the rule would fault; the measurement decides
printf 'init_on_alloc=1 %s\n' "$(cat /proc/cmdline)" >"$WORK/cmdline"
fill_auto 0 unshare -m sh -c 'mount --bind "$0" /proc/cmdline && exec "$@"' "$WORK/cmdline" "$HPFILLD_HOOKED"
expect_measured

# fault asked for under HVO: faulted as asked, measured against sysfs, and a warning with both
# rates where fault measured under half the sysfs rate (--json: the rates measured)
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --mode fault -t 1 --pool 2M:$T
expect_in "$WORK/out" "^2M pool: $T/$T pages on [0-9]+ nodes? in [0-9]+ ms \(fault, 1 thread/node\)$"
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --json --mode fault -t 1 --pool 2M:$T
python3 - "$WORK/out" "$WORK/err" <<'PY' || fail "the forced fault's measurement and warning disagree"
import json, re, sys
m = json.load(open(sys.argv[1]))["pools"][0]["measured"]
err = open(sys.argv[2]).read()
assert m and m["picked"] == "fault" and m["sysfs_pages_per_second"] > 0 and m["fault_pages_per_second"] > 0, m
warn = re.search(r"2M pool: --mode fault \(Mode=fault\) measured (\d+) pages/s here, sysfs (\d+) pages/s: "
                 r"\d+x slower; Mode=auto would pick sysfs", err)
slow = m["fault_pages_per_second"] * 2 < m["sysfs_pages_per_second"]
assert bool(warn) == slow, (m, err)
if warn:
    assert (int(warn[1]), int(warn[2])) == (m["fault_pages_per_second"], m["sysfs_pages_per_second"]), (m, err)
print("ok: --mode fault under HVO measured fault %.0f, sysfs %.0f pages/s; warned: %s" %
      (m["fault_pages_per_second"], m["sysfs_pages_per_second"], bool(warn)))
PY
clean_after

# HVO off: measured as well
echo 0 >"$HVO"
fill_auto 0 "$HPFILLD_HOOKED"
expect_measured

# fault asked for without HVO: as asked, not measured, no warning
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --mode fault -t 1 --pool 2M:$T
if grep -q "would pick sysfs" "$WORK/err"; then fail "a warning where HVO is off"; fi
clean_after

# without the knobs a small fill is not worth a fault probe, and says so
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --pool 2M:$T
expect_in "$WORK/out" "auto: sysfs measured at $rate, fault not probed"
[ "$(pool2m_nr)" = $T ] || fail "the pool holds $(pool2m_nr), expected $T"
clean_after
[ "$(cat "$HVO")" = 0 ] || fail "HVO changed by hpfilld"
# hpfilld status shows the last fill's measurement and the kernel it was made on
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^  2M pool: $T/$T pages .*auto: sysfs measured at $rate"
expect_in "$WORK/out" "^  Measured on Linux $(uname -r): HVO off, init_on_alloc (on|off) \\(from: (kernel command line|/boot/config|unknown)\\)$"
