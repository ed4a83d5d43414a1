#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld bench: a table (or JSON) with every method and thread count, each row printed as it
# is measured, a recommendation and why the winner won, and the pools exactly as found
# afterwards, also with surplus pages a workload holds; as a user it says it needs root; it
# waits for the host lock as a fill does.
. "$(dirname "$0")/lib.sh"
need_test_hooks

pool2m_set 5
before=$(snapshot)
expect_rc 0 "$HPFILLD" bench --size 64M --runs 1 --json
python3 - "$WORK/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["page_size"] == 2 << 20 and d["bytes_per_node"] == 64 << 20, d
modes = {(r["mode"], r["threads_per_node"]) for r in d["results"]}
assert ("sysfs", 1) in modes, modes
assert ("fault", 1) in modes, modes  # MADV_POPULATE_WRITE is there on the kernels we test on
for r in d["results"]:
    # a rate where the method zeroed the memory (fault; sysfs under init_on_alloc), else null
    assert r["ms"] > 0 and (r["gib_per_s"] is None or r["gib_per_s"] > 0), r
    assert r["mode"] != "fault" or r["gib_per_s"] > 0, r
rec = (d["recommended"]["mode"], d["recommended"]["threads_per_node"])
assert rec in modes, rec
best = min((r for r in d["results"] if r["mode"] != "auto"), key=lambda r: r["ms"])
assert (best["mode"], best["threads_per_node"]) == rec, (best, rec)
assert d["recommended"]["reason"] in ("no-zeroing-at-alloc", "init-on-alloc-twice", "hvo", "gigantic",
                                      "no-populate-write", "init-on-alloc-serial", "fault-parallel"), d["recommended"]
# auto measured, as a fill would, and says what and why
assert ("auto", 0) in modes, modes
a = d["auto"]
assert a["picked"] in ("sysfs", "fault") and a["sysfs_pages_per_s"] > 0 and a["hvo"] in (-1, 0, 1), a
assert a["picked"] in a["why"] and "pages/s" in a["why"], a
assert d["kernel"].startswith("Linux ") and "HVO" in d["kernel"] and "init_on_alloc" in d["kernel"], d
PY
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"

expect_rc 0 "$HPFILLD" bench --size 32M --runs 1
expect_in "$WORK/out" "^MODE +THREADS/NODE +MS +GIB/S$"
expect_in "$WORK/out" "^Recommended: Mode=(sysfs|fault)"
expect_in "$WORK/out" "^auto picked (sysfs|fault), [0-9.]+x the best: .*pages/s"
expect_in "$WORK/out" "^Kernel: Linux .*: HVO (on|off|off \(not in this kernel\)), init_on_alloc (on|off) \(from: (kernel command line|/boot/config|unknown)\)$"
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"
# the winner, explained from the kernel it was measured on
expect_in "$WORK/out" "^Winner: (sysfs|fault), [0-9.]+x as fast as (sysfs|fault): .+"
winner=$(sed -n 's/^Winner: \([a-z]*\),.*/\1/p' "$WORK/out")
if grep -q "^Kernel: .*HVO off, init_on_alloc off" "$WORK/out" && [ "$winner" = sysfs ]; then
        expect_in "$WORK/out" "^Winner: sysfs, .*: this kernel does not zero at allocation \(init_on_alloc off\)"
elif grep -q "^Kernel: .*HVO on" "$WORK/out" && [ "$winner" = sysfs ]; then
        expect_in "$WORK/out" "^Winner: sysfs, .*: HVO is on"
elif grep -q "^Kernel: .*init_on_alloc on" "$WORK/out"; then
        expect_in "$WORK/out" "^Winner: $winner, .*: init_on_alloc zeroes every page at allocation"
fi
# what it is doing, on stderr
expect_in "$WORK/err" "^hpfilld: Measuring sysfs: run 1 of 1$"
expect_in "$WORK/err" "^hpfilld: Measuring fault, 1 thread per node: run 1 of 1$"

# each row as it is measured: the first row comes through the pipe while the bench waits (a
# test hook) with the rest still to measure
FIFO="$WORK/bench.fifo"
mkfifo "$FIFO"
coproc BENCH { HPFILLD_TEST_BENCH_PAUSE_FIFO="$FIFO" "$HPFILLD_HOOKED" bench --size 32M --runs 1 2>"$WORK/bench.err"; }
bench_pid=$BENCH_PID
row=
while read -r -t 60 line <&"${BENCH[0]}"; do
        echo "$line" >>"$WORK/bench.out"
        case $line in "sysfs "*) row=$line; break ;; esac
done
[ -n "$row" ] || fail "no sysfs row came through the pipe: $(cat "$WORK/bench.out" "$WORK/bench.err")"
# the open itself waits for the bench: bounded by timeout, not by read -t
line=$(timeout 60 sh -c 'read -r l <"$1" && echo "$l"' sh "$FIFO") ||
        fail "the bench did not pause after its first row"
[ "$line" = paused ] || fail "no rendezvous: '$line'"
kill -0 "$bench_pid" || fail "the bench ended before its first row was read"
! grep -q "^Recommended" "$WORK/bench.out" || fail "the bench had ended"
expect_in "$WORK/bench.err" "Measuring sysfs: run 1 of 1$"
! grep -q "Measuring fault" "$WORK/bench.err" || fail "the bench went on past its pause"
fifo_go "$FIFO"
cat <&"${BENCH[0]}" >>"$WORK/bench.out"
wait "$bench_pid" || fail "the bench failed: $(cat "$WORK/bench.err")"
expect_in "$WORK/bench.out" "^fault +1 +"
expect_in "$WORK/bench.out" "^Recommended: Mode="
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"

# surplus pages a workload holds are not the bench's: not counted, and surplus again after
pool2m_set 0
oc_found=$(cat $HP/hugepages-2048kB/nr_overcommit_hugepages)
echo 20 >$HP/hugepages-2048kB/nr_overcommit_hugepages
hold_pages 8
with_workload=$(snapshot)
expect_rc 0 "$HPFILLD" bench --size 32M --runs 1
[ "$(snapshot)" = "$with_workload" ] || fail "bench changed the pools of a workload: $(diff <(echo "$with_workload") <(snapshot))"
hold_release
echo "$oc_found" >$HP/hugepages-2048kB/nr_overcommit_hugepages
pool2m_set 5

# the host lock, as a fill takes it: held by another (here this shell, through fd 7), the bench
# waits and says so, gives up after --lock-timeout having changed nothing, and once the lock
# is let go it runs and puts the pools back
before=$(snapshot)
mkdir -p /run/hpfilld
# the lock file as hpfilld makes it (mode 0600: one of another mode is refused)
old_umask=$(umask)
umask 077
exec 7>>/run/hpfilld/host.lock
umask "$old_umask"
flock 7
expect_rc 1 "$HPFILLD" bench --size 32M --runs 1 --lock-timeout 1
expect_in "$WORK/err" "^hpfilld: Another fill is running: .*; waiting up to 1 s"
expect_in "$WORK/err" "^hpfilld: Gave up after 1 s: the fill of .* still runs"
! grep -q "Measuring" "$WORK/err" || fail "the bench ran without the host lock: $(cat "$WORK/err")"
[ "$(snapshot)" = "$before" ] || fail "the bench that gave up changed the pools: $(diff <(echo "$before") <(snapshot))"
"$HPFILLD" bench --size 32M --runs 1 >"$WORK/locked.out" 2>"$WORK/locked.err" 7>&- &
locked=$!
for _ in $(seq 300); do # until it says it waits, at most 30 s
        grep -q "Another fill is running" "$WORK/locked.err" && break
        kill -0 "$locked" 2>/dev/null || break
        sleep 0.1
done
expect_in "$WORK/locked.err" "^hpfilld: Another fill is running: .*; waiting up to 60 s"
! grep -q "Measuring" "$WORK/locked.err" || fail "the bench ran while the lock was held"
[ "$(snapshot)" = "$before" ] || fail "the waiting bench changed the pools"
exec 7>&-
wait "$locked" || fail "the bench failed once the lock was let go: $(cat "$WORK/locked.err")"
expect_in "$WORK/locked.err" "The other fill has ended, going on"
expect_in "$WORK/locked.out" "^Recommended: Mode="
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"

# as a user: it needs root, and says so; nothing changes
expect_rc 1 setpriv --reuid=nobody --regid=nogroup --clear-groups "$HPFILLD" bench --size 32M --runs 1
expect_in "$WORK/err" "^hpfilld: bench needs root: it fills and empties the pools, and /sys/.*/nr_hugepages is not writable here \(Permission denied\); nothing was changed$"
! grep -q "could not put the pool back" "$WORK/err" || fail "as a user: $(cat "$WORK/err")"
[ "$(snapshot)" = "$before" ] || { diff <(echo "$before") <(snapshot); fail "bench as a user changed the pools"; }

expect_rc 2 "$HPFILLD" bench --size 100T
expect_in "$WORK/err" "more than half of node"
expect_rc 2 "$HPFILLD" bench --size 3M
expect_rc 2 "$HPFILLD" bench --page-size 16M
expect_rc 2 "$HPFILLD" bench --runs 0
[ "$(snapshot)" = "$before" ] || fail "bad input changed the pools"
echo PASS
