#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld claim and unclaim racing others, on a fake tree under --root. Without a daemon: a
claim that waits for the host lock and is then refused puts back the claim's file as it is when
it has the lock (what another claim of the name wrote meanwhile), not as it was when it started
waiting. Through the daemon: one claim command at a time (run/hpfilld/claim.lock), so that an
unclaim is not refused for another claim's file about to be refused and put back (the daemon's
reload reads every file). The test holds the locks itself, and waits on the command's own
message that it waits for one, never on the clock."""
import fcntl
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, setup, start, stop, write  # noqa: E402
import shutil  # noqa: E402


def wait_for_lock(c):
    """The standard error of command @c until it says it waits for a lock."""
    err = ""
    while "waiting up to" not in err:
        line = c.stderr.readline()
        if not line:
            fail("the command did not wait for the lock: exit %s: %s" % (c.wait(), err))
        err += line
    return err


def main(hpfilld):
    work, root, notify = setup("hpfilld-claim-race-")
    c = d = None
    try:
        write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=4\n")
        claim_file = root + "/run/hpfilld.conf.d/50-claim-vm1.conf"
        lock = os.open(root + "/run/hpfilld/host.lock", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        # refused by the plan once it has the lock: no node7
        c = subprocess.Popen([hpfilld, "claim", "vm1", "--pool", "2M:node7=2", "--root", root],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = wait_for_lock(c)
        # meanwhile, the other claim of vm1 (as if it had had the lock first) made its file
        text = "[Claim]\nName=vm1\nPageSize=2M\nAmount=node0=4\n"
        write(claim_file, text)
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
        rc = c.wait(timeout=LIMIT)
        err += c.stderr.read()
        if rc != 2 or "node7" not in err:
            fail("claim vm1 (node7): exit %d: %s" % (rc, err))
        if not os.path.exists(claim_file):
            fail("the refused claim removed the file the other claim of vm1 had made meanwhile: %s" % err)
        with open(claim_file) as f:
            if f.read() != text:
                fail("the refused claim put back another file than the one there when it had the lock")

        # through the daemon: vm1's claim applied; then, while claim vm2 holds the claim lock with
        # its file written (node7: the daemon's plan will refuse it), unclaim vm1 waits for it
        d = start(notify, [hpfilld, "--root", root])
        notify.until("READY=1")
        lock = os.open(root + "/run/hpfilld/claim.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        vm2 = root + "/run/hpfilld.conf.d/50-claim-vm2.conf"
        write(vm2, "[Claim]\nName=vm2\nPageSize=2M\nAmount=node7=2\n")
        c = subprocess.Popen([hpfilld, "unclaim", "vm1", "--root", root],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = wait_for_lock(c)
        # claim vm2 refused, its file put back (none), the lock let go
        os.unlink(vm2)
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
        rc = c.wait(timeout=LIMIT)
        err += c.stderr.read()
        if rc != 0 or os.path.exists(claim_file):
            fail("unclaim vm1 beside a claim about to be refused: exit %d: %s" % (rc, err))
        stop(d, notify)
    finally:
        for p in (c, d):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        notify.close()
        shutil.rmtree(work)
    print("PASS")


main(os.environ["HPFILLD"])
