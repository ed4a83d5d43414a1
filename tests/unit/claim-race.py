#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld claim without a daemon, racing another claim of the same name, on a fake tree under
--root: a claim that waits for the host lock and is then refused puts back the claim's file as
it is when it has the lock (what the other claim wrote meanwhile), not as it was when it
started waiting. The test holds the host lock itself, and waits on the command's own message
that it waits for the lock, never on the clock."""
import fcntl
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, setup, write  # noqa: E402
import shutil  # noqa: E402


def main(hpfilld):
    work, root, notify = setup("hpfilld-claim-race-")
    notify.close()
    c = None
    try:
        write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=4\n")
        claim_file = root + "/run/hpfilld.conf.d/50-claim-vm1.conf"
        lock = os.open(root + "/run/hpfilld/host.lock", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        # refused by the plan once it has the lock: no node7
        c = subprocess.Popen([hpfilld, "claim", "vm1", "--pool", "2M:node7=2", "--root", root],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = ""
        while "waiting up to" not in err:
            line = c.stderr.readline()
            if not line:
                fail("the claim did not wait for the host lock: exit %s: %s" % (c.wait(), err))
            err += line
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
    finally:
        if c and c.poll() is None:
            c.kill()
            c.wait()
        shutil.rmtree(work)
    print("PASS")


main(os.environ["HPFILLD"])
