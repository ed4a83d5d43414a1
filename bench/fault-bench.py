#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fault method against itself at 1, 2, 4, ... threads per node, and against sysfs and auto.

Fills the 2 MiB pool to SIZE (default 2G) and back, each variant its own process, interleaved,
warm. The fault method zeroes every page it faults in, in parallel; the sysfs method zeroes
nothing unless the kernel runs with init_on_alloc=1, where it zeroes serially. Needs root.
"""
import argparse
import os

from benchlib import HPFILLD, PAGE, check_host, parse_size, print_table, run_interleaved, span, target, warm_free_memory


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=HPFILLD)
    ap.add_argument("--size", default="2G", help="pool size to fill to (default 2G)")
    ap.add_argument("--runs", type=int, default=7, help="runs per variant (default 7)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up fills (default 1)")
    ap.add_argument("--max-threads", type=int, default=os.cpu_count(), help="up to this many threads per node")
    ap.add_argument("--no-warm-free", action="store_true", help="do not touch 75%% of free memory first")
    args = ap.parse_args()

    check_host()
    if not args.no_warm_free:
        warm_free_memory(args.hpfilld)
    pages = parse_size(args.size) // PAGE
    base = [args.hpfilld, "--once", "-q", "--pool", "2M:%d" % target(pages)]
    tools = {}
    t = 1
    while t <= args.max_threads:
        tools["fault %d/node" % t] = base + ["--mode", "fault", "--threads-per-node", str(t)]
        t *= 2
    tools["sysfs"] = base + ["--mode", "sysfs"]
    tools["auto"] = base + ["--mode", "auto"]
    # warm-up through the fault path too: it touches every page, as a workload would
    run_interleaved({"warm": base + ["--mode", "fault"]}, pages, args.warmup, 0)
    times = run_interleaved(tools, pages, args.runs, 0)
    print("2M pool: %s (%s), %d runs each, warm, interleaved, %d CPUs" %
          (span(pages), args.size, args.runs, os.cpu_count()))
    print_table(times, "fault 1/node")


if __name__ == "__main__":
    main()
