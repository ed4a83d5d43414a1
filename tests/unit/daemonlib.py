# SPDX-License-Identifier: MIT
"""For the unit tests that run the daemon on a fake tree under --root: the tree, and the
daemon's sd_notify messages on a socket of the test's (waited on, with a time limit against
hangs, never on the clock)."""
import os
import socket
import sys

LIMIT = 30  # seconds: a hang fails the test instead of blocking the suite


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


def finish(daemon, notify, work):
    """After a test, pass or fail: no daemon left running, the socket and the tree gone."""
    import shutil
    if daemon and daemon.poll() is None:
        daemon.kill()
    notify.close()
    shutil.rmtree(work)
