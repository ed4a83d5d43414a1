#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""1 GiB pages at runtime: pages got and milliseconds per page, echo and hpfilld, HVO off and on.

Each round empties the 1G pool (but for the pages others hold: in use or reserved), then asks for --pages pages with `echo N > nr_hugepages`,
`hpfilld --once --pool 1G:N` and `hpfilld ... --drop-caches`, interleaved; then, once, with
compaction (/proc/sys/vm/compact_memory) and dropped caches just before an echo, to see whether
they get more. Medians over rounds. The pool, its overcommit and vm.hugetlb_optimize_vmemmap are
put back as found. Needs root; run it under the host lock, on a host with the memory free:
    flock /tmp/hpfilld-host.lock bench/gigantic-bench.py [--pages 16] [--rounds 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import benchlib

G1 = benchlib.HP_1G
BASE = 0  # the 1G pages others hold: each fill starts from them


def nr():
    return benchlib.read("nr_hugepages", G1)


def set_nr(n):
    benchlib.write("nr_hugepages", n, G1)


def fill(cmd):
    """(pages got, seconds) of @cmd from an empty pool; the pool emptied after."""
    set_nr(BASE)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    dt = time.perf_counter() - t0
    got = nr() - BASE
    set_nr(BASE)
    return got, dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=benchlib.HPFILLD)
    ap.add_argument("--pages", type=int, default=16, help="1 GiB pages asked (default 16)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root")
    if not os.path.isdir(G1):
        sys.exit("this kernel offers no 1 GiB pages")
    global BASE
    if benchlib.read("surplus_hugepages", G1) > 0:
        sys.exit("surplus 1 GiB pages are in use on this host: the bench's writes would make them persistent")
    BASE = benchlib.others_hold(G1)
    with open("/proc/meminfo") as f:
        free = next(int(l.split()[1]) for l in f if l.startswith("MemFree:")) >> 20
    if args.pages > free - 2:
        sys.exit("%d pages asked, %d GiB free: ask for fewer (--pages)" % (args.pages, free))
    hp = [args.hpfilld, "--once", "-q", "--min", "1", "--pool", "1G:%d" % (BASE + args.pages)]
    tools = {"echo": ["sh", "-c", "echo %d > %s/nr_hugepages" % (BASE + args.pages, G1)],
             "hpfilld": hp, "hpfilld --drop-caches": hp + ["--drop-caches"]}
    hvos = [0, 1] if benchlib.get_hvo() is not None else [None]
    print("1G pool: %d -> %d pages asked, %d GiB free, median of %d rounds" % (BASE, BASE + args.pages, free, args.rounds))
    print("%-8s %-22s %8s %10s %12s" % ("HVO", "tool", "pages", "ms", "ms per page"))
    with benchlib.pool_kept(G1), benchlib.hvo_kept():
        for hvo in hvos:
            set_nr(BASE)
            if hvo is not None:
                benchlib.set_hvo(hvo)
            res = {t: [] for t in tools}
            for _ in range(args.rounds):
                for name, cmd in tools.items():
                    res[name].append(fill(cmd))
            for name, rs in res.items():
                got = statistics.median(g for g, _ in rs)
                ms = statistics.median(t for _, t in rs) * 1e3
                print("%-8s %-22s %8d %10.0f %12.1f" % ({0: "off", 1: "on", None: "n/a"}[hvo], name, got, ms,
                                                       ms / got if got else float("nan")))
        subprocess.run(["sync"], check=False)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        with open("/proc/sys/vm/compact_memory", "w") as f:
            f.write("1\n")
        got, dt = fill(tools["echo"])
        print("after drop_caches and compact_memory, echo: %d pages in %.0f ms" % (got, dt * 1e3))


if __name__ == "__main__":
    main()
