#!/bin/bash
# SPDX-License-Identifier: MIT
# A SIGTERM sent while the kernel allocates in a write ends that write (stop_write_open()): a
# 4 GiB fill, one write, is signalled once the kernel has begun to allocate its pages (no timing:
# the kernel's own count says so) and stops short of its target with the pages it got kept, exit
# 1. Before the write window it got all 2048 pages first.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "no python3 (tools/setup.sh --test installs it)"

pages=2048
avail=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB$/\1/p' /proc/meminfo)
[ "$avail" -gt $((pages * 2048 * 3 / 2)) ] ||
        { echo "SKIP: needs $((pages * 3)) MiB available, $((avail / 1024)) MiB are"; exit 77; }
# python3 starts hpfilld (its own start-up would outlast the fill) and reads the kernel's count of
# huge pages allocated (/proc/vmstat htlb_buddy_alloc_success: per page, while the write's loop
# runs; nr_hugepages moves only once the write's batch is added to the pool) until it moves, then
# sends SIGTERM at once; hpfilld's exit status is its own. Under the host lock no one else
# allocates huge pages meanwhile.
# python3 exits 99 where hpfilld ended before it saw the count move (descheduled that long on a
# busy host): tried again, up to 5 times
for try in 1 2 3 4 5; do
        pool2m_set 0
        rc=0
        python3 - "$HPFILLD" --once --mode sysfs --pool "2M:node$first=$((BASE + pages))" >"$WORK/out" 2>"$WORK/err" <<'PY' || rc=$?
import signal, subprocess, sys

def allocated(f):
    f.seek(0)
    return next(int(l.split()[1]) for l in f if l.startswith("htlb_buddy_alloc_success "))

with open("/proc/vmstat") as f:
    before = allocated(f)
    p = subprocess.Popen(sys.argv[1:])
    while p.poll() is None:
        if allocated(f) > before:
            p.send_signal(signal.SIGTERM)
            sys.exit(p.wait())
    sys.exit(99)
PY
        [ "$rc" = 99 ] || break
        echo "try $try: the fill ended before the count was seen to move"
done
[ "$rc" != 99 ] || { echo "SKIP: the fill always ended before its allocation was seen (a busy host)"; exit 77; }
cat "$WORK/out" "$WORK/err"
got=$(node_nr "$first" 2048)
[ "$rc" = 1 ] || fail "exit $rc, expected 1 (interrupted)"
expect_in "$WORK/err" "Interrupted by signal 15 \(.*\); pages already added stay in the pools"
# (on top of the pages others hold: BASE, lib.sh)
[ "$got" -gt "$BASE" ] && [ "$got" -lt $((BASE + pages)) ] || fail "node$first holds $got pages: the write was not cut short by the SIGTERM"
expect_in "$WORK/out" "^2M pool: $got/$((BASE + pages)) pages on 1 node in [0-9]+ ms \(sysfs, 1 writer\), interrupted$"
pool2m_set 0
echo PASS
