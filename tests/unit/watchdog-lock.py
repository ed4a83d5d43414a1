#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The daemon feeds systemd's watchdog while its first fill waits for the host lock (another
fill holds it: here this test, by flock() on the fake tree's run/hpfilld/host.lock), as it does when
idle: WATCHDOG=1 at half of WATCHDOG_USEC, not silence for up to --lock-timeout. On a fake tree
under --root; waits on the daemon's own messages (with a time limit against hangs)."""
import fcntl
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, run, start, stop  # noqa: E402


def test(hpfilld, work, root, notify):
    until, messages = notify.until, notify.messages
    # the lock file as hpfilld makes it (mode 0600: it refuses one of another mode)
    lock = os.fdopen(os.open(root + "/run/hpfilld/host.lock", os.O_RDWR | os.O_CREAT, 0o600), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    d = start(notify, [hpfilld, "--root", root, "--lock-timeout", str(LIMIT), "--pool", "2M:node0=4"],
              WATCHDOG_USEC="200000")
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
    err = stop(d, notify)
    if "Another fill is running" not in err:
        fail("the daemon did not say it waited: %s" % err)


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-watchdog-")
