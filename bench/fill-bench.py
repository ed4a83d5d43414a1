#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fill the 2 MiB pool to SIZE and back to empty with hpfilld and its peers, interleaved.

Each tool runs as its own process, timed from fork to exit, so the figures include what an
administrator would pay: hpfilld --once, `sh -c 'echo N > nr_hugepages'`,
`hugeadm --pool-pages-min 2MB:N` and `dpdk-hugepages.py --reserve SIZE`. Warm memory, medians,
ratio to echo. Needs root.
"""
import argparse
import shutil

from benchlib import HP, HPFILLD, PAGE, check_host, node_pools, paired, parse_size, print_table, run_interleaved, span, target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=HPFILLD)
    ap.add_argument("--size", default="4G", help="pool size to fill to (default 4G)")
    ap.add_argument("--runs", type=int, default=15, help="runs per tool (default 15)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed warm-up fills (default 2)")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=BINARY",
                    help="another hpfilld in the same rounds (an older build, build/hpfilld-initramfs)")
    args = ap.parse_args()

    check_host()
    pages = parse_size(args.size) // PAGE
    size = target(pages)
    tools = {
        "hpfilld": [args.hpfilld, "--once", "-q", "--pool", "2M:%d" % size],
        "echo": ["sh", "-c", "echo %d > %s/nr_hugepages" % (size, HP)],
    }
    for also in args.also:
        name, _, path = also.partition("=")
        if not path:
            ap.error("--also %s: NAME=BINARY" % also)
        tools[name] = [path, "--once", "-q", "--pool", "2M:%d" % size]
    if shutil.which("hugeadm"):
        tools["hugeadm"] = ["hugeadm", "--pool-pages-min", "2MB:%d" % size]
    else:
        print("hugeadm not found (apt-get install libhugetlbfs-bin): left out")
    # it asks every node for the same count: the pool's size only where one node has memory
    if not shutil.which("dpdk-hugepages.py"):
        print("dpdk-hugepages.py not found (apt-get install dpdk): left out")
    elif node_pools() != 1:
        print("dpdk-hugepages.py left out: it asks each of the %d nodes for the whole size" % node_pools())
    else:
        tools["dpdk-hugepages.py"] = ["dpdk-hugepages.py", "--pagesize", "2M", "--reserve", "%dM" % (size * 2)]
    times = run_interleaved(tools, pages, args.runs, args.warmup)
    print("2M pool: %s (%s), %d runs each, warm, interleaved" % (span(pages), args.size, args.runs))
    print_table(times, "echo")
    print("paired (round by round) x echo: " + ", ".join("%s %.2f" % (n, paired(ts, times["echo"]))
                                                      for n, ts in times.items() if n != "echo"))


if __name__ == "__main__":
    main()
