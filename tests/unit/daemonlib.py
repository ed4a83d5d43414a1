# SPDX-License-Identifier: MIT
"""For the unit tests that run the daemon on a fake tree under --root: the tree, and the
daemon's sd_notify messages on a socket of the test's (waited on, with a time limit against
hangs, never on the clock)."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

LIMIT = 30  # seconds: a hang fails the test instead of blocking the suite
POOL = "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def tree(root, sizes_kb=(2048,)):
    """One node with 4 GiB and CPUs 0-1, empty pools of @sizes_kb, an empty run/hpfilld."""
    node = root + "/sys/devices/system/node"
    for kb in sizes_kb:
        pool = node + "/node0/hugepages/hugepages-%dkB" % kb
        for f in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
            write(pool + "/" + f, "0\n")
        write(root + "/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages" % kb, "0\n")
    write(node + "/node0/cpulist", "0-1\n")
    write(node + "/node0/meminfo", "Node 0 MemTotal:       4194304 kB\nNode 0 MemFree:        4000000 kB\n")
    write(node + "/node0/distance", "10\n")
    write(node + "/node0/compact", "")
    for f in ("online", "has_memory"):
        write(node + "/" + f, "0\n")
    write(node + "/has_cpu", "0-1\n")
    write(root + "/proc/cmdline", "")
    os.makedirs(root + "/run/hpfilld", mode=0o755)


class Notify:
    """A socket for NOTIFY_SOCKET; every message kept, in order."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(LIMIT)
        self.messages = []
        self.daemon = None

    def until(self, word):
        """Messages until one with a line @word (or starting with it, where it ends in '=')."""
        while True:
            try:
                m = self.sock.recv(4096).decode()
            except socket.timeout:
                d = self.daemon
                fail("no %s within %d s; got %r (daemon %s)" % (word, LIMIT, self.messages,
                                                               "running" if d and d.poll() is None else
                                                               "exited %s" % (d and d.returncode)))
            self.messages.append(m)
            lines = m.split("\n")
            if word in lines or (word.endswith("=") and any(l.startswith(word) for l in lines)):
                return m

    def close(self):
        self.sock.close()


def setup(prefix, sizes_kb=(2048,)):
    """A directory of the test's own: the tree (tree()) in its root/, a Notify socket in it.
    Returns (work, root, notify)."""
    work = tempfile.mkdtemp(prefix=prefix)
    root = work + "/root"
    tree(root, sizes_kb)
    return work, root, Notify(work + "/notify")


def start(notify, argv, **env):
    """The daemon @argv, its sd_notify messages to @notify (no WATCHDOG_PID of the caller's), with
    @env added to its environment and standard output and error kept."""
    e = dict(os.environ, NOTIFY_SOCKET=notify.path, **env)
    e.pop("WATCHDOG_PID", None)
    d = subprocess.Popen(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    notify.daemon = d
    return d


def stop(d, notify):
    """SIGTERM; the daemon says STOPPING=1 and exits 0 (else the test fails). Returns its standard
    error."""
    d.send_signal(signal.SIGTERM)
    notify.until("STOPPING=1")
    rc = d.wait(timeout=LIMIT)
    err = d.stderr.read()
    if rc != 0:
        fail("exit status %d; stderr: %s" % (rc, err))
    return err


def finish(daemon, notify, work):
    """After a test, pass or fail: no daemon left running, the socket and the tree gone."""
    if daemon and daemon.poll() is None:
        daemon.kill()
    notify.close()
    shutil.rmtree(work)


def run(test, hpfilld, prefix, sizes_kb=(2048,)):
    """@test(hpfilld, work, root, notify) in a setup() of its own, finish()ed after whatever it
    did (the daemon it start()ed killed if still running); PASS where it returns."""
    work, root, notify = setup(prefix, sizes_kb)
    try:
        test(hpfilld, work, root, notify)
    finally:
        finish(notify.daemon, notify, work)
    print("PASS")


def need_fake_kernel():
    """Skips the test (exit 77, saying why) where the fake kernel is not preloaded."""
    if "fake-kernel" not in os.environ.get("LD_PRELOAD", ""):
        print("SKIP: not run under the fake kernel (LD_PRELOAD of tests/fakekernel, as meson test does)")
        sys.exit(77)


def need_hooked():
    """The binary with the test hooks (tests/hooks/hooks.h), or a skip (exit 77) saying why."""
    hooked = os.environ.get("HPFILLD_HOOKED")
    if not hooked:
        print("SKIP: needs HPFILLD_HOOKED, the binary with the test hooks")
        sys.exit(77)
    return hooked


def fake_pools(root):
    """The fake kernel keeps the counters of @root's pools as the kernel does (its file
    fake-pools): a smaller nr_hugepages written frees free pages, free_hugepages follows."""
    need_fake_kernel()
    write(root + "/fake-pools", "")


def nr(root):
    """The 2M pool of node0 of @root: its nr_hugepages."""
    with open(root + POOL + "nr_hugepages") as f:
        return int(f.read())


def set_nr(root, n):
    """The admin's echo N > nr_hugepages of @root's 2M pool of node0 (through the fake kernel,
    which reads the counts there: not truncated first, as open(..., "w") would)."""
    fd = os.open(root + POOL + "nr_hugepages", os.O_WRONLY)
    try:
        os.write(fd, b"%d\n" % n)
    finally:
        os.close(fd)


def state(root):
    """The text of @root's run/hpfilld/state ("" where there is none)."""
    try:
        with open(root + "/run/hpfilld/state") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def shares(root):
    """What each owner has of the 2M pool of node0, from the state: {owner: (held, want)}."""
    for line in state(root).split("\n"):
        w = line.split(" ")
        if w[:3] == ["pool", "2097152", "0"]:
            return {o: tuple(int(x) for x in hw.split("/")[:2]) for o, hw in (s.split("=") for s in w[4:])}
    return {}


def hpfilld(argv0, root, *args, **env):
    """hpfilld @args --root @root, @env added to its environment: (exit status, stdout + stderr)."""
    p = subprocess.run([argv0, *args, "--root", root], capture_output=True, text=True, timeout=LIMIT,
                       env=dict(os.environ, **env))
    return p.returncode, p.stdout + p.stderr


class Rendezvous:
    """The FIFO of a test hook's rendezvous (tests/hooks/hooks.c): the hooked process writes
    "paused" and waits until the test writes to it in turn."""

    def __init__(self, path):
        self.path = path
        os.mkfifo(path)

    def paused(self, what):
        """Waits (at most LIMIT s) for the hooked process to say it is paused."""
        p = subprocess.run(["sh", "-c", 'read -r l <"$1" && echo "$l"', "sh", self.path], capture_output=True,
                           text=True, timeout=LIMIT)
        if p.stdout.strip() != "paused":
            fail("%s: no rendezvous on %s: %r" % (what, self.path, p.stdout))

    def go(self):
        """On with the paused process (it reads the FIFO until its writer closes it; at most
        LIMIT s for it to open it)."""
        subprocess.run(["sh", "-c", 'echo go >"$1"', "sh", self.path], check=True, timeout=LIMIT)
