#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld give-back refuses while the daemon runs (it holds run/hpfilld/daemon.lock for its
life), changing nothing, and gives back once it has stopped. On a fake tree under --root;
waits on the daemon's own messages (with a time limit against hangs)."""
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, Notify, fail, finish, tree, write  # noqa: E402


def main():
    hpfilld = os.environ["HPFILLD"]
    work = tempfile.mkdtemp(prefix="hpfilld-give-back-")
    root = work + "/root"
    tree(root)
    pool = root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/"
    notify = Notify(work + "/notify")
    d = None
    try:
        # a one-off's pages, all free (the fake kernel leaves free_hugepages as written)
        subprocess.run([hpfilld, "--root", root, "--once", "--pool", "2M:node0=8"], check=True,
                       stdout=subprocess.DEVNULL)
        write(pool + "free_hugepages", "8\n")
        env = dict(os.environ, NOTIFY_SOCKET=work + "/notify")
        d = subprocess.Popen([hpfilld, "--root", root, "--pool", "2M:node0=8"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        notify.daemon = d
        notify.until("READY=1")
        g = subprocess.run([hpfilld, "give-back", "--root", root], capture_output=True, text=True, timeout=LIMIT)
        if g.returncode != 1 or "The hpfilld daemon runs" not in g.stderr or "stop it first" not in g.stderr:
            fail("give-back beside the daemon: exit %d, %s%s" % (g.returncode, g.stdout, g.stderr))
        if open(pool + "nr_hugepages").read().strip() != "8":
            fail("give-back beside the daemon changed the pool")
        d.send_signal(signal.SIGTERM)
        notify.until("STOPPING=1")
        if d.wait(timeout=LIMIT) != 0:
            fail("the daemon exited %d: %s" % (d.returncode, d.stderr.read()))
        g = subprocess.run([hpfilld, "give-back", "--root", root], capture_output=True, text=True, timeout=LIMIT)
        if g.returncode != 0 or "2M pool of node0: 8 pages given back (8 -> 0)" not in g.stdout:
            fail("give-back after the daemon: exit %d, %s%s" % (g.returncode, g.stdout, g.stderr))
    finally:
        finish(d, notify, work)
    print("PASS")


if __name__ == "__main__":
    main()
