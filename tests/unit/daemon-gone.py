#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A daemon that crashed (SIGKILL) holds no mark (run/hpfilld/daemon.lock: the kernel lets go
of its flock()), and the control socket it leaves behind is not asked: hpfilld claim applies
the claim by itself under the host lock (exit 0, the pages there when it returns, no hang),
and give-back gives back what is beyond the claim. Both tell a running daemon the same way.
On a fake tree under --root; waits on the daemon's messages and the commands' exits."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, run, start, write  # noqa: E402


def test(hpfilld, work, root, notify):
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=4\n")
    pool = root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/"

    def nr():
        with open(pool + "nr_hugepages") as f:
            return int(f.read())

    def hpfilld_run(*args):
        p = subprocess.run([hpfilld, *args, "--root", root], capture_output=True, text=True, timeout=LIMIT)
        return p.returncode, p.stdout + p.stderr

    d = start(notify, [hpfilld, "--root", root])
    notify.until("READY=1")
    d.kill()
    d.wait(timeout=LIMIT)
    if not os.path.exists(root + "/run/hpfilld/control"):
        fail("the crashed daemon left no control socket: nothing to test")

    rc, out = hpfilld_run("claim", "vm1", "--pool", "2M:node0=16M", "-v")
    if rc != 0 or "claim vm1: no daemon runs, applying it here" not in out:
        fail("claim beside a crashed daemon's socket: exit %d: %s" % (rc, out))
    if nr() != 12:
        fail("after claim vm1 returned: %d pages, expected 4 + 8" % nr())

    # the daemon's 4 (its ledger) given back, the claim's 8 kept (the fake kernel's pages free)
    write(pool + "free_hugepages", "12\n")
    rc, out = hpfilld_run("give-back")
    if rc != 0 or "2M pool of node0: 4 pages given back (12 -> 8); 8 kept for the claims" not in out:
        fail("give-back after the daemon crashed: exit %d: %s" % (rc, out))
    if nr() != 8 or not os.path.exists(root + "/run/hpfilld.conf.d/50-claim-vm1.conf"):
        fail("give-back took the claim's pages or file: %d pages" % nr())


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-daemon-gone-")
