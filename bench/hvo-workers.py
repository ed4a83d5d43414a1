#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Do faulting workers overlap their RCU grace periods under HVO? Times surplus faults of N 2 MiB
pages by threads sharing a mapping, threads with a mapping each and processes (bench/hvo-fault.c),
then hpfilld --mode fault at each thread count, with vm.hugetlb_optimize_vmemmap on; HVO, the
pool and its overcommit are put back as found. Run as root under the host lock:
    flock /tmp/hpfilld-host.lock bench/hvo-workers.py [--pages 64] [--runs 3]"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import benchlib

HVO = "/proc/sys/vm/hugetlb_optimize_vmemmap"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hpfilld", default=benchlib.HPFILLD)
    ap.add_argument("--pages", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    benchlib.check_host()
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp, benchlib.pool_kept(), benchlib.hvo_kept():
        prog = os.path.join(tmp, "hvo-fault")
        subprocess.run(["cc", "-O2", "-pthread", "-o", prog, os.path.join(here, "hvo-fault.c")], check=True)
        benchlib.write("nr_overcommit_hugepages", args.pages)
        benchlib.set_hvo(1)
        print("HVO on, %d pages of 2 MiB, median of %d" % (args.pages, args.runs))
        print("%-28s %10s" % ("arrangement", "median ms"))
        for how in ("shared", "sep", "proc"):
            for w in (w for w in (1, 2, 4, 8, 16) if w <= args.pages):  # a worker maps one page at least
                ts = []
                for _ in range(args.runs):
                    benchlib.empty()
                    ts.append(benchlib.timed([prog, how, str(args.pages), str(w)]))
                print("%-28s %10.1f" % ("%s, %d workers" % (how, w), statistics.median(ts) * 1e3))
        for t in (str(t) for t in (1, 2, 4, 8, 16) if t <= args.pages):
            ts = []
            for _ in range(args.runs):
                benchlib.empty()
                ts.append(benchlib.timed([args.hpfilld, "--once", "-q", "--mode", "fault", "-t", t,
                                          "--pool", "2M:%d" % benchlib.target(args.pages)]))
            print("%-28s %10.1f" % ("hpfilld -t %s" % t, statistics.median(ts) * 1e3))


if __name__ == "__main__":
    sys.exit(main())
