#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a run executes in user space, counted: a number the host's noise does not move.

Each command runs once under valgrind's callgrind, from an empty 2M pool (put back as found):
sh -c 'echo N > nr_hugepages', hpfilld --version, hpfilld --once --mode sysfs and auto. For each:
the instructions it executed in user space, what of them the dynamic loader executed itself (its
start, and the symbols it bound lazily: "binding", those calls with all they did), and main()
with all it called on the main thread (a fill of several nodes runs threads besides). Then the
functions of hpfilld's --once (sysfs) that executed the most, each with what it called.
valgrind has no openat2(): under it hpfilld opens every file by its own walk, a component at a
time (open_beneath_walk(), what kernels before 5.6 get); the column "less walk" takes that out,
which is what a run on this kernel executes. Run after run the counts agree to a few
instructions; they move by about 1 % with what /run/hpfilld holds (the old record and ledger
a run reads, their lengths). The times a run takes are not counted here (bench/matrix.py,
bench/floor.py); where they scale with instructions, a cut shows here first, without noise.
Needs root and valgrind:
    flock /tmp/hpfilld-host.lock bench/instructions.py [--pages 128] [--top 15]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import benchlib

LINE = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+(?:\S*:)?([A-Za-z_][\w.]*)(?: \[(.*)\])?$")


def inclusive(out_file):
    """The total of a callgrind profile, and {function: (instructions, object)}, each with all
    it called; a function shown on several lines (inlined in other files) keeps its largest."""
    r = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out_file],
                       capture_output=True, text=True, check=True)
    found = {}
    for line in r.stdout.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        n, fn, obj = int(m.group(1).replace(",", "")), m.group(2), m.group(3) or ""
        had, had_obj = found.get(fn, (0, ""))
        found[fn] = (max(n, had), obj or had_obj)
    total = re.search(r"^\s*([\d,]+) \([ \d.]+%\)\s+PROGRAM TOTALS", r.stdout, re.M)
    if not total:
        sys.exit("callgrind_annotate printed no total for %s" % out_file)
    return int(total.group(1).replace(",", "")), found


def own_by_object(out_file):
    """{object: instructions it executed itself}, from the callgrind file: a cost line counts
    for the object named last by ob=, except the one after each calls= (the callee's, inclusive).
    Object names are compressed: "ob=(N) NAME" or "cob=(N) NAME" the first time, "(N)" after."""
    names, own, ob, after_call = {}, {}, "", False
    with open(out_file) as f:
        for line in f:
            if line.startswith(("ob=", "cob=")):
                m = re.match(r"c?ob=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
                if m and m.group(2):
                    names[m.group(1)] = m.group(2)  # named where first seen, as a caller's or a callee's
                if line.startswith("ob="):
                    ob = names.get(m.group(1), "") if m else line[3:].strip()
            elif line.startswith("calls="):
                after_call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if not after_call:
                    own[ob] = own.get(ob, 0) + int(line.split()[-1])
                after_call = False
    return own


def counted(cmd, work, name):
    """The profile of one run of @cmd from an empty 2M pool (but for what others hold)."""
    benchlib.empty()
    out_file = os.path.join(work, name + ".out")
    # as a run is started by hand or by systemd: no malloc() that fills what it hands out (meson
    # test sets MALLOC_PERTURB_), which would count a memset() of every buffer
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        sys.exit("%s failed under valgrind (%d): %s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    total, incl = inclusive(out_file)
    return total, incl, own_by_object(out_file)


def get(found, fn):
    return found.get(fn, (0, ""))[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hpfilld", default=benchlib.HPFILLD)
    ap.add_argument("--pages", type=int, default=128, help="the fill, 2M pages (default 128: 256 MiB)")
    ap.add_argument("--top", type=int, default=15, help="hpfilld functions shown (default 15)")
    args = ap.parse_args()

    benchlib.check_host()
    for tool in ("valgrind", "callgrind_annotate"):
        if not shutil.which(tool):
            sys.exit("no %s (apt-get install valgrind)" % tool)
    hpfilld = os.path.abspath(args.hpfilld)
    libs = subprocess.run(["ldd", hpfilld], capture_output=True, text=True).stdout
    if re.search(r"lib(a|t)san", libs):
        sys.exit("%s is a sanitizer build: valgrind cannot run it" % hpfilld)
    size = benchlib.target(args.pages)
    hp = ["--once", "-q", "--pool", "2M:%d" % size]
    cmds = {
        "echo": ["sh", "-c", "echo %d > %s/nr_hugepages" % (size, benchlib.HP)],
        "hpfilld --version": [hpfilld, "--version"],
        "hpfilld sysfs": [hpfilld, "--mode", "sysfs"] + hp,
        "hpfilld auto": [hpfilld] + hp,
    }
    profiles = {}
    with benchlib.pool_kept(), tempfile.TemporaryDirectory(prefix="hpfilld-instructions-") as work:
        for i, (name, cmd) in enumerate(cmds.items()):
            profiles[name] = counted(cmd, work, "run%d" % i)

    print("2M pool: %s; instructions executed in user space, one run each (callgrind)" % benchlib.span(args.pages))
    # ld.so, libc, program: what each object executed itself (the loader's start and its lazy
    # binding of each symbol on its first call; the C library; the program's own code); binding:
    # the calls through the loader's trampoline, with all they did
    print("%-20s %9s %9s %9s %9s %9s %9s %10s %7s" % ("command", "total", "ld.so", "libc", "program", "binding",
                                                      "main", "less walk", "x echo"))
    echo = profiles["echo"][0]
    for name, (total, incl, own) in profiles.items():
        walk = get(incl, "open_beneath_walk")
        program = os.path.realpath(shutil.which(cmds[name][0]))
        loader = sum(n for obj, n in own.items() if os.path.basename(obj).startswith("ld-linux"))
        libc = sum(n for obj, n in own.items() if os.path.basename(obj).startswith("libc.so"))
        itself = sum(n for obj, n in own.items() if obj.startswith("/") and os.path.realpath(obj) == program)
        binding = sum(get(incl, fn) for fn in incl if fn.startswith("_dl_runtime_resolve"))
        print("%-20s %9d %9d %9d %9d %9d %9d %10d %7.2f" % (name, total, loader, libc, itself, binding,
                                                            get(incl, "main"), total - walk, (total - walk) / echo))

    total, incl, _ = profiles["hpfilld sysfs"]
    print("hpfilld sysfs: hpfilld's functions that executed the most, with what they called (the walk "
          "included; itself not shown), of %d" % total)
    hidden = ("main", "run", "open_beneath", "open_beneath_walk")
    top = sorted(((n, fn) for fn, (n, obj) in incl.items()
                  if os.path.basename(obj) == os.path.basename(hpfilld) and fn not in hidden), reverse=True)
    for n, fn in top[:args.top]:
        print("  %-40s %10d %6.1f%%" % (fn, n, 100.0 * n / total))


if __name__ == "__main__":
    main()
