#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fill the 2 MiB pool to SIZE and back to empty with hpfilld and its peers, interleaved.

Each tool runs as its own process, timed from fork to exit, so the figures include what an
administrator would pay: hpfilld --once, `sh -c 'echo N > nr_hugepages'`, and
`hugeadm --pool-pages-min 2MB:N`. The pool is emptied (untimed) before every run. The memory
is touched first (warm-up), since the first touch of guest memory costs far more than later
ones. Prints per-tool medians and the ratio to echo. Restores the pool it found. Needs root.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

HP = "/sys/kernel/mm/hugepages/hugepages-2048kB"
PAGE = 2 * 1024 * 1024


def read(name):
    with open(os.path.join(HP, name)) as f:
        return int(f.read())


def write(name, value):
    with open(os.path.join(HP, name), "w") as f:
        f.write("%d\n" % value)


def parse_size(s):
    units = {"M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * units[s[-1].upper()] if s[-1].upper() in units else int(s)


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr))
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=os.path.join(os.path.dirname(__file__), "..", "build", "hpfilld"))
    ap.add_argument("--size", default="4G", help="pool size to fill to (default 4G)")
    ap.add_argument("--runs", type=int, default=15, help="runs per tool (default 15)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed warm-up fills (default 2)")
    args = ap.parse_args()

    if os.geteuid() != 0:
        sys.exit("needs root")
    pages = parse_size(args.size) // PAGE
    tools = {
        "hpfilld": [args.hpfilld, "--once", "-q", "--pool", "2M:%d" % pages],
        "echo": ["sh", "-c", "echo %d > %s/nr_hugepages" % (pages, HP)],
    }
    if shutil.which("hugeadm"):
        tools["hugeadm"] = ["hugeadm", "--pool-pages-min", "2MB:%d" % pages]
    else:
        print("hugeadm not found (apt-get install libhugetlbfs-bin): left out")

    found = read("nr_hugepages")
    if read("nr_hugepages") - read("free_hugepages") > 0:
        sys.exit("2 MiB pages are in use on this host: the bench would not start from an empty pool")
    times = {t: [] for t in tools}
    try:
        for _ in range(args.warmup):
            write("nr_hugepages", pages)
            write("nr_hugepages", 0)
        for _ in range(args.runs):
            for name, cmd in tools.items():  # interleaved: drift hits every tool alike
                write("nr_hugepages", 0)
                dt = timed(cmd)
                got = read("nr_hugepages")
                if got != pages:
                    sys.exit("%s left %d pages, expected %d" % (name, got, pages))
                times[name].append(dt)
    finally:
        write("nr_hugepages", found)

    base = statistics.median(times["echo"])
    print("2M pool: 0 -> %d pages (%s), %d runs each, warm, interleaved" % (pages, args.size, args.runs))
    print("%-10s %10s %10s %10s %8s" % ("tool", "median ms", "min ms", "max ms", "x echo"))
    for name, ts in times.items():
        med = statistics.median(ts)
        print("%-10s %10.2f %10.2f %10.2f %8.2f" % (name, med * 1e3, min(ts) * 1e3, max(ts) * 1e3, med / base))


if __name__ == "__main__":
    main()
