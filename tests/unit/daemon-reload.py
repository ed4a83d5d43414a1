#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld reload (the unit's ExecReload= under a systemd older than 253): with no daemon it
fails (exit 1) and says so; with one, it returns only when the daemon's reload fill is done:
while the host lock is held elsewhere the fill waits and so does the command; once the lock is
let go it exits 0 with the new plan's pages there. A bad configuration: exit 2, the one in use
kept. A fill that comes back short: exit 3. On a fake tree under --root; waits on the daemon's messages and the command's exit."""
import fcntl
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, run, start, stop, write  # noqa: E402


def test(hpfilld, work, root, notify):
    pool = root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/"

    def nr():
        with open(pool + "nr_hugepages") as f:
            return int(f.read())

    def reload():
        return subprocess.Popen([hpfilld, "reload", "--root", root], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    p = reload()
    out = p.communicate(timeout=LIMIT)[0]
    if p.returncode != 1 or "No hpfilld daemon listens on" not in out:
        fail("reload without a daemon: exit %d: %s" % (p.returncode, out))

    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=4\n")
    d = start(notify, [hpfilld, "--root", root, "--lock-timeout", "60"])
    notify.until("READY=1")
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=10\n")
    lock = os.fdopen(os.open(root + "/run/hpfilld/host.lock", os.O_RDWR), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    p = reload()
    notify.until("RELOADING=1")
    if p.poll() is not None:
        fail("hpfilld reload returned while the reload's fill waited for the host lock: %s" % p.stdout.read())
    if nr() != 4:
        fail("the reload's fill wrote with the host lock held elsewhere: %d pages" % nr())
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    out = p.communicate(timeout=LIMIT)[0]
    if p.returncode != 0 or nr() != 10:
        fail("hpfilld reload: exit %d, %d pages when it returned, expected 0 and 10: %s" % (p.returncode, nr(), out))
    notify.until("READY=1")

    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=10\nNoSuchKey=1\n")
    p = reload()
    out = p.communicate(timeout=LIMIT)[0]
    if p.returncode != 2 or "NoSuchKey" not in out or nr() != 10:
        fail("hpfilld reload of a bad configuration: exit %d, %d pages: %s" % (p.returncode, nr(), out))
    notify.until("READY=1")

    # a reload whose fill comes back short (the fake kernel grants 12 of 20): exit 3, as the fill's
    write(pool + "nr_hugepages.fake-max", "12\n")
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=20\n")
    p = reload()
    out = p.communicate(timeout=LIMIT)[0]
    if p.returncode != 3 or nr() != 12:
        fail("hpfilld reload of a fill that came back short: exit %d, %d pages, expected 3 and 12: %s"
             % (p.returncode, nr(), out))
    notify.until("READY=1")
    stop(d, notify)


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-daemon-reload-")
