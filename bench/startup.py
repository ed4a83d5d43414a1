#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a run costs beside its kernel write, on this host and in a QEMU/TCG guest, side by side.

Host rows (benchlib.startup(): interleaved, a shuffled order per round): sh -c true, busybox's,
hpfilld --version and an --once with nothing to do (and the same for hpfilld-initramfs, the
static build of -Dstatic-initramfs=true, where it was built), paired ratios to sh -c true. With
--vm, the guest's rows (bench/vm-startup.sh: Debian's kernel, one node of 2 CPUs; a small fill
beside echo's too), paired ratios to busybox's sh -c true, and issue 22's goal: an --once at most
2x busybox's sh -c true beyond its fill (round by round: (--once fill - echo) / sh -c true).
Needs root; the host rows take the 2M pool as found (empty) and leave it so:
    flock /tmp/hpfilld-host.lock bench/startup.py [--runs 101] [--vm] [--vm-runs 15] [--pages 16]
"""
import argparse
import os
import statistics
import subprocess
import sys

import benchlib

GOAL = 2.0  # the guest's --once beyond its fill, x busybox sh -c true


def static_binary(hpfilld):
    path = os.path.join(os.path.dirname(os.path.abspath(hpfilld)), "hpfilld-initramfs")
    return path if os.access(path, os.X_OK) else None


def vm_rows(args):
    """{name: [seconds]} from bench/vm-startup.sh's lines."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm-startup.sh")
    env = dict(os.environ, HPFILLD=os.path.abspath(args.hpfilld))
    if args.static:
        env["HPFILLD_STATIC"] = args.static
    r = subprocess.run([script, str(args.vm_runs), str(args.pages)], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("bench/vm-startup.sh failed (%d):\n%s" % (r.returncode, (r.stderr + r.stdout)[-3000:]))
    times = {}
    for line in r.stdout.splitlines():
        _, name, ms = line.split()
        times.setdefault(name, []).append(float(ms) / 1e3)
    return times


def print_rows(title, times, ref):
    print(title)
    for name, ts in times.items():
        print("  %-40s %9.3f ms %7.2fx" % (name, statistics.median(ts) * 1e3,
                                        benchlib.paired(ts, times[ref])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=benchlib.HPFILLD)
    ap.add_argument("--runs", type=int, default=101, help="host rounds (default 101)")
    ap.add_argument("--vm", action="store_true", help="the guest's rows too (bench/vm-startup.sh)")
    ap.add_argument("--vm-runs", type=int, default=15, help="guest rounds (default 15)")
    ap.add_argument("--pages", type=int, default=16, help="the guest's small fill, 2M pages (default 16)")
    args = ap.parse_args()
    args.static = static_binary(args.hpfilld)
    benchlib.check_host()

    host = benchlib.startup(args.hpfilld, args.runs, static=args.static)
    print_rows("host: median of %d rounds, ms, paired x sh -c true" % args.runs, host, "sh -c true")
    if not args.vm:
        return
    guest = vm_rows(args)
    print_rows("TCG guest: median of %d rounds, ms, paired x busybox sh -c true" % args.vm_runs, guest, "sh-true")
    for prefix in ("", "static-") if args.static else ("",):
        fill, echo, sh = guest[prefix + "once-fill"], guest["echo"], guest["sh-true"]
        beyond = statistics.median((f - e) / s for f, e, s in zip(fill, echo, sh))
        print("TCG guest: %s--once of %d pages beyond echo's fill: %.2fx busybox sh -c true (paired, goal %.2fx): %s" %
              (prefix and "hpfilld-initramfs ", args.pages, beyond, GOAL, "met" if beyond <= GOAL else "MISSED"))


if __name__ == "__main__":
    main()
