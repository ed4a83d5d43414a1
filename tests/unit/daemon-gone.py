#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A daemon killed (SIGKILL) leaves its record in the state (run/hpfilld/state's daemon line)
and its control socket behind: give-back sees that it has ended and gives back (the
configuration's pages, not the claim's), and the record goes; a claim adds its pages as ever,
never asking the socket. On a fake tree under --root whose fake kernel keeps the pools'
counters; waits on the daemon's messages and the commands' exits."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, fake_pools, hpfilld, nr, run, shares, start, state, write  # noqa: E402


def test(hpfilld_bin, work, root, notify):
    fake_pools(root)
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=4\n")

    def cmd(*args):
        return hpfilld(hpfilld_bin, root, *args)

    d = start(notify, [hpfilld_bin, "--root", root])
    notify.until("READY=1")
    rc, out = cmd("claim", "vm1", "--pool", "2M:node0=16M")
    if rc != 0 or nr(root) != 12:
        fail("claim vm1 beside the daemon: exit %d, %d pages, expected 4 + 8: %s" % (rc, nr(root), out))
    d.kill()
    d.wait(timeout=LIMIT)
    if "\ndaemon %d " % d.pid not in state(root) or not os.path.exists(root + "/run/hpfilld/control"):
        fail("the killed daemon left no record in the state, or no control socket: nothing to test\n%s" % state(root))

    # the record is stale: the configuration's 4 given back, vm1's 8 kept
    rc, out = cmd("give-back")
    if (rc != 0 or "2M pool of node0: 4 pages given back (12 -> 8)" not in out
            or "1 claim kept (hpfilld unclaim NAME gives one back): vm1" not in out):
        fail("give-back after the daemon was killed: exit %d: %s" % (rc, out))
    if nr(root) != 8 or shares(root).get("claim:vm1") != (8, 8):
        fail("give-back took the claim's pages: %d pages, state:\n%s" % (nr(root), state(root)))
    if "\ndaemon " in state(root):
        fail("give-back kept the killed daemon's record:\n%s" % state(root))

    # a claim: its pages added here, on top
    rc, out = cmd("claim", "vm2", "--pool", "2M:node0=2")
    if rc != 0 or nr(root) != 10 or shares(root).get("claim:vm2") != (2, 2):
        fail("claim vm2 after the daemon was killed: exit %d, %d pages: %s" % (rc, nr(root), out))


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-daemon-gone-")
