#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prefault a reservation with hpfilld against QEMU's own preallocation of the same file.

hpfilld --once --reserve NAME:2M:SIZE (threads per node as given) is timed against
qemu-system-x86_64 -machine none -object memory-backend-file,size=SIZE,mem-path=FILE,share=on,
prealloc=on,prealloc-threads=N, from start until QEMU has preallocated and quit at its monitor.
Both take their pages from the same filled 2 MiB pool, in a private hugetlbfs mount; files are
removed between runs (untimed). Warm, interleaved, medians. Needs root and qemu-system-x86.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import HPFILLD, PAGE, check_host, parse_size, print_table, read, timed, warm_free_memory, write


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=HPFILLD)
    ap.add_argument("--size", default="2G", help="reservation size (default 2G)")
    ap.add_argument("--threads", type=int, default=2, help="threads: hpfilld per node, QEMU prealloc-threads")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-warm-free", action="store_true", help="do not touch 75%% of free memory first")
    args = ap.parse_args()

    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        sys.exit("qemu-system-x86_64 not found (apt-get install qemu-system-x86)")
    check_host()
    if not args.no_warm_free:
        warm_free_memory(args.hpfilld)
    pages = parse_size(args.size) // PAGE
    mnt = tempfile.mkdtemp(prefix="hpfilld-bench-")
    subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "none", mnt], check=True)
    found = read("nr_hugepages")
    qfile = os.path.join(mnt, "qemu-bench")
    tools = {
        "hpfilld": [args.hpfilld, "--once", "-q", "--threads-per-node", str(args.threads),
                    "--reserve", "bench:2M:%d" % pages],
        "qemu prealloc": [qemu, "-machine", "none", "-nodefaults", "-display", "none", "-monitor", "stdio",
                          "-object", "memory-backend-file,id=m0,size=%d,mem-path=%s,share=on,prealloc=on,"
                          "prealloc-threads=%d" % (pages * PAGE, qfile, args.threads)],
        # QEMU's own start and quit, for scale: the same file, nothing preallocated
        "qemu, no prealloc": [qemu, "-machine", "none", "-nodefaults", "-display", "none", "-monitor", "stdio",
                              "-object", "memory-backend-file,id=m0,size=%d,mem-path=%s,share=on"
                              % (pages * PAGE, qfile)],
    }
    times = {t: [] for t in tools}
    try:
        write("nr_hugepages", pages + 16)
        if read("nr_hugepages") < pages + 16:
            sys.exit("could not fill the pool to %d pages" % (pages + 16))
        for i in range(args.runs + 1):  # the first round warms up and is not counted
            for name, cmd in tools.items():
                # QEMU quits at its monitor prompt: the time includes its start and prealloc
                dt = timed(cmd, "quit\n" if name.startswith("qemu") else None)
                held = read("nr_hugepages") - read("free_hugepages")
                if name != "qemu, no prealloc" and held != pages:
                    sys.exit("%s: %d pages held, expected %d" % (name, held, pages))
                if name == "hpfilld":
                    subprocess.run([args.hpfilld, "-q", "--release", "bench"], check=True)
                if os.path.exists(qfile):
                    os.unlink(qfile)
                if i > 0:
                    times[name].append(dt)
    finally:
        if os.path.exists(os.path.join(mnt, "hpfilld", "bench")):
            subprocess.run([args.hpfilld, "-q", "--release", "bench"], check=False)
        shutil.rmtree(os.path.join(mnt, "hpfilld"), ignore_errors=True)
        if os.path.exists(qfile):
            os.unlink(qfile)
        subprocess.run(["umount", mnt], check=False)
        os.rmdir(mnt)
        write("nr_hugepages", found)
    print("reservation of %d 2M pages (%s), %d threads, %d runs each, warm, interleaved"
          % (pages, args.size, args.threads, args.runs))
    print_table(times, "qemu prealloc")


if __name__ == "__main__":
    main()
