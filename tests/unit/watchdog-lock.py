#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The daemon feeds systemd's watchdog while its first fill waits for the host lock (another
fill holds it: here this test, by flock() on the fake tree's run/hpfilld/host.lock), as it does when
idle: WATCHDOG=1 at half of WATCHDOG_USEC, not silence for up to --lock-timeout. On a fake tree
under --root; waits on the daemon's own messages (with a time limit against hangs)."""
import fcntl
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, Notify, fail, finish, tree  # noqa: E402


def main():
    hpfilld = os.environ["HPFILLD"]
    work = tempfile.mkdtemp(prefix="hpfilld-watchdog-")
    root = work + "/root"
    tree(root)
    notify = Notify(work + "/notify")
    until, messages = notify.until, notify.messages
    d = None

    # the lock file as hpfilld makes it (mode 0600: it refuses one of another mode)
    lock = os.fdopen(os.open(root + "/run/hpfilld/host.lock", os.O_RDWR | os.O_CREAT, 0o600), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        env = dict(os.environ, NOTIFY_SOCKET=work + "/notify", WATCHDOG_USEC="200000")
        env.pop("WATCHDOG_PID", None)
        d = subprocess.Popen([hpfilld, "--root", root, "--lock-timeout", str(LIMIT), "--pool", "2M:node0=4"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        notify.daemon = d
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
        finish(d, notify, work)
    print("PASS")


if __name__ == "__main__":
    main()
