#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld --once against echo and against the floor of such a fill, side by side.

The floor is bench/floor.c, built here: a one-node fill that does only what an --once must do
beside the kernel's write (its reads, the lock and its holder, the write, the counters read back,
a ledger and a record swapped in whole, into a directory of its own on this host's /run), hard-
coded, nothing else. It says how much of hpfilld's margin over echo is the work such a fill
cannot leave out, and how much is hpfilld's own. "floor + calls" is the floor making every other
system call an --once makes as well (floor.c's "calls"), as many as hpfilld: what is left
between it and hpfilld runs in user space (bench/instructions.py counts it). Interleaved
(benchlib.run_interleaved()), medians, paired ratios to echo. With --back-to-back, the rounds again with each timed run right
after an untimed one of the same tool (benchlib.run_back_to_back()): the same work with the
caches warm from its last run, which tells how much of a margin is a larger program's start cold. Needs root and a C compiler;
one node with memory:
    flock /tmp/hpfilld-host.lock bench/floor.py [--size 256M] [--runs 41] [--back-to-back]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import benchlib


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=benchlib.HPFILLD)
    ap.add_argument("--size", default="256M", help="pool size to fill to (default 256M)")
    ap.add_argument("--runs", type=int, default=41, help="rounds (default 41)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed warm-up fills (default 2)")
    ap.add_argument("--back-to-back", action="store_true", help="the rounds again, each timed run right after an untimed one of the same tool")
    args = ap.parse_args()

    benchlib.check_host()
    nodes = "/sys/devices/system/node/has_memory"
    if os.path.exists(nodes):
        with open(nodes) as f:
            has_memory = f.read().strip()
        if has_memory not in ("0", ""):
            sys.exit("the floor is of a machine with one node of memory (node0): this one has %s" % has_memory)
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        sys.exit("no C compiler (apt-get install gcc)")
    pages = benchlib.parse_size(args.size) // benchlib.PAGE
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "floor.c")
    with tempfile.TemporaryDirectory(prefix="hpfilld-floor-") as build, \
            tempfile.TemporaryDirectory(prefix="hpfilld-floor-", dir="/run") as state:
        floor = os.path.join(build, "floor")
        subprocess.run([cc, "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", floor, src], check=True)
        size = benchlib.target(pages)
        hp = ["--once", "-q", "--pool", "2M:%d" % size]
        tools = {
            "echo": ["sh", "-c", "echo %d > %s/nr_hugepages" % (size, benchlib.HP)],
            "floor": [floor, state, str(size)],
            "floor + calls": [floor, state, str(size), "calls"],
            "hpfilld sysfs": [args.hpfilld, "--mode", "sysfs"] + hp,
            "hpfilld auto": [args.hpfilld] + hp,
        }
        times = benchlib.run_interleaved(tools, pages, args.runs, args.warmup)
        warm = benchlib.run_back_to_back(tools, pages, args.runs, 0) if args.back_to_back else None
    print("2M pool: %s (%s), %d rounds, interleaved" % (benchlib.span(pages), args.size, args.runs))
    benchlib.print_table(times, "echo")
    print("paired (round by round) x echo: " + ", ".join("%s %.2f" % (n, benchlib.paired(ts, times["echo"]))
                                                      for n, ts in times.items() if n != "echo"))
    print("hpfilld auto x floor, paired: %.2f" % benchlib.paired(times["hpfilld auto"], times["floor"]))
    print("hpfilld sysfs x floor + calls, paired: %.2f" % benchlib.paired(times["hpfilld sysfs"], times["floor + calls"]))
    if warm:
        print("back to back (each timed run right after an untimed one of the same tool), %d rounds:" % args.runs)
        benchlib.print_table(warm, "echo")
        print("back to back, paired x echo: " + ", ".join("%s %.2f" % (n, benchlib.paired(ts, warm["echo"]))
                                                       for n, ts in warm.items() if n != "echo"))
        print("back to back, hpfilld auto x floor, paired: %.2f" % benchlib.paired(warm["hpfilld auto"], warm["floor"]))


if __name__ == "__main__":
    main()
