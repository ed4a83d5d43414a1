#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The daemon feeds systemd's watchdog while its first fill waits for the host lock (another
fill holds it: here this test, by flock() on the fake tree's run/hpfilld/lock), as it does when
idle: WATCHDOG=1 at half of WATCHDOG_USEC, not silence for up to --lock-timeout. On a fake tree
under --root; waits on the daemon's own messages (with a time limit against hangs)."""
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

LIMIT = 30  # seconds: a hang fails the test instead of blocking the suite


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def tree(root):
    """One node with 4 GiB and CPUs 0-1, empty 2M pools."""
    node = root + "/sys/devices/system/node"
    pool = node + "/node0/hugepages/hugepages-2048kB"
    for f in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
        write(pool + "/" + f, "0\n")
    write(node + "/node0/cpulist", "0-1\n")
    write(node + "/node0/meminfo", "Node 0 MemTotal:       4194304 kB\nNode 0 MemFree:        4000000 kB\n")
    write(node + "/node0/distance", "10\n")
    write(node + "/node0/compact", "")
    for f in ("online", "has_memory"):
        write(node + "/" + f, "0\n")
    write(node + "/has_cpu", "0-1\n")
    write(root + "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n")
    write(root + "/proc/cmdline", "")
    os.makedirs(root + "/run/hpfilld", mode=0o755)


def main():
    hpfilld = os.environ["HPFILLD"]
    work = tempfile.mkdtemp(prefix="hpfilld-watchdog-")
    root = work + "/root"
    tree(root)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(work + "/notify")
    sock.settimeout(LIMIT)
    messages = []
    d = None

    def until(word):
        while True:
            try:
                m = sock.recv(4096).decode()
            except socket.timeout:
                fail("no %s within %d s; got %r (daemon %s)" % (word, LIMIT, messages,
                                                               "running" if d.poll() is None else
                                                               "exited %d" % d.returncode))
            messages.append(m)
            if word in m.split("\n"):
                return

    # the lock file as hpfilld makes it (mode 0600: it replaces one of another mode)
    lock = os.fdopen(os.open(root + "/run/hpfilld/lock", os.O_RDWR | os.O_CREAT, 0o600), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        env = dict(os.environ, NOTIFY_SOCKET=work + "/notify", WATCHDOG_USEC="200000")
        env.pop("WATCHDOG_PID", None)
        d = subprocess.Popen([hpfilld, "--root", root, "--lock-timeout", str(LIMIT), "--pool", "2M:node0=4"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # while the lock is held here the fill cannot start: each WATCHDOG=1 is of the wait
        until("WATCHDOG=1")
        until("WATCHDOG=1")
        if any("READY=1" in m.split("\n") for m in messages):
            fail("READY=1 while the host lock was held elsewhere: %r" % messages)
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()
        until("READY=1")
        with open(root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages") as f:
            if f.read().strip() != "4":
                fail("READY=1 without the pool filled after the wait")
        d.send_signal(signal.SIGTERM)
        until("STOPPING=1")
        rc = d.wait(timeout=LIMIT)
        err = d.stderr.read()
        if rc != 0:
            fail("exit status %d; stderr: %s" % (rc, err))
        if "Another fill is running" not in err:
            fail("the daemon did not say it waited: %s" % err)
    finally:
        if d and d.poll() is None:
            d.kill()
        sock.close()
        shutil.rmtree(work)
    print("PASS")


if __name__ == "__main__":
    main()
