# SPDX-License-Identifier: MIT
"""Shared by the bench scripts: the pools' knobs (the 2 MiB pool's unless told), timing of whole
commands, the table."""
import contextlib
import ctypes
import glob
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

HP = "/sys/kernel/mm/hugepages/hugepages-2048kB"
HP_1G = "/sys/kernel/mm/hugepages/hugepages-1048576kB"
PAGE = 2 * 1024 * 1024
HPFILLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "hpfilld")


def read(name, hp=HP):
    with open(os.path.join(hp, name)) as f:
        return int(f.read())


def write(name, value, hp=HP):
    with open(os.path.join(hp, name), "w") as f:
        f.write("%d\n" % value)


def node_pools():
    """How many nodes have pools of their own (a machine without NUMA: 1)."""
    return len(glob.glob("/sys/devices/system/node/node*/hugepages")) or 1


def parse_size(s):
    units = {"M": 1 << 20, "G": 1 << 30}
    u = s[-1].upper()
    return int(s[:-1]) * units[u] if u in units else int(s)


def timed(cmd, stdin=None):
    """Seconds from fork to exit of @cmd (fed @stdin); exits the bench if it fails."""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr))
    return dt


# The pages others hold in the 2 MiB pool (in use, or reserved by a mapping): a bench cannot
# empty the pool of them, so every fill starts from them and ends @pages above. check_host() sets it.
BASE = 0


def others_hold(hp=HP):
    """The pages of pool @hp that others hold and no write can take back: in use, or reserved."""
    return read("nr_hugepages", hp) - read("free_hugepages", hp) + read("resv_hugepages", hp)


def check_host():
    """Root, and a 2 MiB pool a bench can time fills in beside whoever else uses it: the pages
    others hold (BASE) stay, and each fill starts from them. Surplus pages in use are refused:
    the bench's writes would make them persistent, and the pool would not go back as found."""
    global BASE
    if os.geteuid() != 0:
        sys.exit("needs root")
    if read("surplus_hugepages") > 0:
        sys.exit("%d surplus 2 MiB pages are in use on this host: the bench's writes would make them persistent"
                 % read("surplus_hugepages"))
    BASE = others_hold()
    if BASE:
        print("others hold %d 2 MiB pages (in use or reserved): every fill starts from them" % BASE, flush=True)


def target(pages):
    """The pool's size once a fill has added @pages to what others hold."""
    return BASE + pages


def span(pages):
    """The fills a table shows, for its heading: "0 -> 128 pages", "8 -> 136 pages"."""
    return "%d -> %d pages" % (BASE, target(pages))


def empty():
    """The 2 MiB pool down to what others hold (untimed: before a fill)."""
    write("nr_hugepages", BASE)


@contextlib.contextmanager
def pool_kept(hp=HP):
    """The pool's size and overcommit are put back as found, however the block ends (the
    overcommit only where it changed: a gigantic pool's refuses every write)."""
    found, overcommit = read("nr_hugepages", hp), read("nr_overcommit_hugepages", hp)
    try:
        yield
    finally:
        write("nr_hugepages", found, hp)
        if read("nr_overcommit_hugepages", hp) != overcommit:
            write("nr_overcommit_hugepages", overcommit, hp)


def warm_free_memory(hpfilld, share=0.75):
    """Touches @share of the available memory once, through hpfilld's fault method (which zeroes
    every page), then empties the pool again. Where the host backs guest memory lazily, a page's
    first touch costs many times a later one, and which pages a fill gets changes from run to
    run: without this, whichever run lands on untouched memory measures the host, not the tool.
    Slow the first time after boot (25 s for 18 GiB on the build machine), about a second after."""
    with open("/proc/meminfo") as f:
        avail = next(int(l.split()[1]) for l in f if l.startswith("MemAvailable:")) * 1024
    pages = int(avail * share) // PAGE
    t0 = time.perf_counter()
    with pool_kept():
        subprocess.run([hpfilld, "--once", "-q", "--mode", "fault", "--min", "1", "--pool", "2M:%d" % pages],
                       stdout=subprocess.DEVNULL, check=False)
    print("warm-up: %.1f GiB of free memory touched in %.1f s" % (pages * PAGE / (1 << 30), time.perf_counter() - t0))


def round_order(names, i):
    """@names in round @i's order: shuffled, the same in every bench run. What ran just before (a
    fault fill that touched memory, HVO's vmemmap work) must not always come before the same
    tool, as it would in a fixed or merely rotated order."""
    names = list(names)
    random.Random(i).shuffle(names)
    return names


def timed_fill(name, cmd, pages):
    """Seconds of one fill by @cmd from an empty pool (emptied untimed, down to what others hold);
    exits the bench unless it left @pages pages more, none surplus."""
    empty()
    dt = timed(cmd)
    got = read("nr_hugepages")
    if got != target(pages) or read("surplus_hugepages") != 0:
        sys.exit("%s left %d pages (%d surplus), expected %d" % (name, got, read("surplus_hugepages"), target(pages)))
    return dt


def warm_pool(pages, warmup):
    for _ in range(warmup):  # first touch of guest memory costs far more than later ones
        write("nr_hugepages", target(pages))
        empty()


def run_interleaved(tools, pages, runs, warmup):
    """Empties the pool (untimed) before each run; every tool once per round, in an order shuffled
    every round, so drift and what ran before hit all alike. Returns {tool: [seconds]}. Restores the pool's size and overcommit."""
    times = {t: [] for t in tools}
    with pool_kept():
        warm_pool(pages, warmup)
        for i in range(runs):
            for name in round_order(tools, i):
                times[name].append(timed_fill(name, tools[name], pages))
    return times


def run_back_to_back(tools, pages, runs, warmup):
    """As run_interleaved(), but each timed run right after an untimed one of the same tool, as
    in a loop of one command: the caches hold what it ran a moment ago, which in a shuffled round
    they never do. Still rounds, so paired ratios hold."""
    times = {t: [] for t in tools}
    with pool_kept():
        warm_pool(pages, warmup)
        for i in range(runs):
            for name in round_order(tools, i):
                timed_fill(name, tools[name], pages)
                times[name].append(timed_fill(name, tools[name], pages))
    return times


def print_table(times, base):
    ref = statistics.median(times[base])
    print("%-16s %10s %10s %10s %8s" % ("tool", "median ms", "min ms", "max ms", "x " + base))
    for name, ts in times.items():
        med = statistics.median(ts)
        print("%-16s %10.2f %10.2f %10.2f %8.2f" % (name, med * 1e3, min(ts) * 1e3, max(ts) * 1e3, med / ref))


HVO = "/proc/sys/vm/hugetlb_optimize_vmemmap"


def get_hvo():
    """vm.hugetlb_optimize_vmemmap now, or None where the kernel has none."""
    try:
        with open(HVO) as f:
            return int(f.read())
    except FileNotFoundError:
        return None


def set_hvo(value):
    with open(HVO, "w") as f:
        f.write("%d\n" % value)


@contextlib.contextmanager
def hvo_kept():
    """vm.hugetlb_optimize_vmemmap is put back as found, however the block ends (the pool must be
    emptied first: the kernel only changes how it allocates new pages)."""
    found = get_hvo()
    try:
        yield found
    finally:
        if found is not None:
            set_hvo(found)


CLONE_NEWNS = 0x00020000


def in_mount_namespace(setup, fn):
    """fn()'s value (JSON's kinds), computed in a child process in a mount namespace of its own,
    private (nothing it mounts reaches the host), after the commands @setup ran there: the
    mounts are made once, and no timed run pays for them (a wrapper such as unshare before every
    command would time its own start with each tool's, and bring their ratios nearer 1)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(rfd)
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.unshare(CLONE_NEWNS) != 0:
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
            subprocess.run(["mount", "--make-rprivate", "/"], check=True)
            for cmd in setup:
                subprocess.run(cmd, check=True)
            with os.fdopen(wfd, "w") as out:
                json.dump(fn(), out)
            code = 0
        except BaseException as e:  # the child's: said, and its exit status tells the parent
            print("in the mount namespace: %r" % e, file=sys.stderr)
        finally:
            os._exit(code)
    os.close(wfd)
    try:
        with os.fdopen(rfd) as f:
            data = f.read()
    except BaseException:
        # interrupted: the child stops before the pools are put back behind it
        os.kill(pid, 15)
        raise
    finally:
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code != 0:
        sys.exit("the run in a mount namespace of its own failed (exit status %d)" % code)
    return json.loads(data)


def paired(times, ref):
    """The median of @times over @ref, run by run (the same round: drift hits both alike)."""
    return statistics.median(a / b for a, b in zip(times, ref))


def startup(hpfilld, runs, static=None):
    """{command: [seconds]} for commands that do nothing but start: sh -c true (busybox's too, where
    there is one), hpfilld --version, and an --once whose pool is at its target (the 2 MiB pool,
    empty but for what others hold, asked for that with --shrink: it reads the host, takes the
    lock, records, writes nothing);
    the same for @static (hpfilld-initramfs) where given. Interleaved, a shuffled order per round."""
    tools = {"sh -c true": ["sh", "-c", "true"]}
    if shutil.which("busybox"):
        tools["busybox sh -c true"] = ["busybox", "sh", "-c", "true"]
    for name, path in (("hpfilld", hpfilld), ("hpfilld-initramfs", static)):
        if path:
            tools[name + " --version"] = [path, "--version"]
            tools[name + " --once, nothing to do"] = [path, "--once", "-q", "--pool", "2M:%d" % BASE, "--shrink"]
    times = {t: [] for t in tools}
    with pool_kept():
        empty()
        for i in range(runs):
            for name in round_order(tools, i):
                times[name].append(timed(tools[name]))
    return times
