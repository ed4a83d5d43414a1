#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prefault a reservation with hpfilld against QEMU's own preallocation of the same file.

hpfilld --once --reserve NAME:2M:SIZE (threads per node as given) is timed against
qemu-system-x86_64 -machine none -object memory-backend-file,size=SIZE,mem-path=FILE,share=on,
prealloc=on,prealloc-threads=N, from start until QEMU has preallocated and quit at its monitor.
Both take their pages from the same filled 2 MiB pool, in a private hugetlbfs mount; files are
removed between runs (untimed). Two more QEMU runs show what the difference is made of: QEMU
starting and quitting on a new file without prealloc (its start-up alone), and QEMU with
prealloc=on started on the file hpfilld just made (how a VM starts on a reservation: its pages
are there, nothing is zeroed). Warm, interleaved, medians, and per round QEMU's prealloc less
its start-up. Needs root and qemu-system-x86.
"""
import statistics
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import HPFILLD, PAGE, check_host, parse_size, print_table, read, target, timed, warm_free_memory, write


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
    in_use = found - read("free_hugepages")  # others' pages, mapped: what each tool holds is counted above them
    qfile = os.path.join(mnt, "qemu-bench")
    rfile = os.path.join(mnt, "hpfilld", "bench")
    qemu_base = [qemu, "-machine", "none", "-nodefaults", "-display", "none", "-monitor", "stdio", "-object"]
    tools = {
        # in the bench's mount, named: the first 2M mount of the host (systemd's /dev/hugepages,
        # another consumer's) is where a reservation goes otherwise
        "hpfilld": [args.hpfilld, "--once", "-q", "--threads-per-node", str(args.threads),
                    "--reserve", "bench:2M:%d,mount=%s" % (pages, mnt)],
        # run right after hpfilld, before the release: a VM's memory on the reservation
        "qemu on reserve": qemu_base + ["memory-backend-file,id=m0,size=%d,mem-path=%s,share=on,prealloc=on,"
                                                "prealloc-threads=%d" % (pages * PAGE, rfile, args.threads)],
        "qemu prealloc": qemu_base + ["memory-backend-file,id=m0,size=%d,mem-path=%s,share=on,prealloc=on,"
                                      "prealloc-threads=%d" % (pages * PAGE, qfile, args.threads)],
        # QEMU's own start and quit, for scale: the same file, nothing preallocated
        "qemu, no prealloc": qemu_base + ["memory-backend-file,id=m0,size=%d,mem-path=%s,share=on"
                                          % (pages * PAGE, qfile)],
    }
    times = {t: [] for t in tools}
    try:
        write("nr_hugepages", target(pages) + 16)
        if read("nr_hugepages") < target(pages) + 16:
            sys.exit("could not fill the pool to %d pages" % (target(pages) + 16))
        for i in range(args.runs + 1):  # the first round warms up and is not counted
            for name, cmd in tools.items():
                # QEMU quits at its monitor prompt: the time includes its start and prealloc
                dt = timed(cmd, "quit\n" if name.startswith("qemu") else None)
                held = read("nr_hugepages") - read("free_hugepages") - in_use
                if name != "qemu, no prealloc" and held != pages:
                    sys.exit("%s: %d pages held, expected %d" % (name, held, pages))
                if name == "qemu on reserve":
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
    # per round: what QEMU's prealloc costs beyond its start-up, against hpfilld's whole run
    own = [q - b for q, b in zip(times["qemu prealloc"], times["qemu, no prealloc"])]
    print("QEMU's prealloc less its start-up (paired by round): %.2f ms; hpfilld whole: %.2f ms (%.2fx)"
          % (statistics.median(own) * 1e3, statistics.median(times["hpfilld"]) * 1e3,
             statistics.median([h / o for h, o in zip(times["hpfilld"], own)]) if min(own) > 0 else float("nan")))
    start = [v - b for v, b in zip(times["qemu on reserve"], times["qemu, no prealloc"])]
    print("QEMU on the reservation less QEMU without prealloc (paired): %+.2f ms" % (statistics.median(start) * 1e3))


if __name__ == "__main__":
    main()
