#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld claim and unclaim through the running daemon, on a fake tree under --root: the
command asks the daemon on its control socket (run/hpfilld/control) and returns when the
daemon's fill is done, so the pool holds the claim's pages the moment it returns; unclaim gives
them back; a bad claim is refused (exit 2), its file gone, the daemon's plan unchanged; a short
one is exit 3 with one line naming it; a daemon that reads no claims (--config) refuses them.
An unclaim whose fill fails (the host lock held elsewhere), or that is killed before it asks the
daemon, or whose daemon is killed in that fill (test hooks of hpfilld-hooked), leaves its
give-back pending, and the next fill (a reload, the daemon's start) does it; a daemon's fill on a
configuration read before the unclaim removed the file (its first) leaves it pending too, and
the claim made anew through the daemon takes it for done.
Waits on the daemon's own messages and on the command's exit, never on the clock."""
import fcntl
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, run, start, stop, write  # noqa: E402


def test(hpfilld, work, root, notify):
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=4\n")
    pool = root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/"
    claims = root + "/run/hpfilld.conf.d/"

    def nr():
        with open(pool + "nr_hugepages") as f:
            return int(f.read())

    def free(n):
        with open(pool + "free_hugepages", "w") as f:
            f.write("%d\n" % n)

    hooked = os.environ["HPFILLD_HOOKED"]
    fifo = work + "/fifo"
    os.mkfifo(fifo)

    def paused(what, fifo=fifo):
        # the rendezvous of the test hooks: "paused" from the hooked process (at most LIMIT s)
        p = subprocess.run(["sh", "-c", 'read -r l <"$1" && echo "$l"', "sh", fifo], capture_output=True, text=True,
                           timeout=LIMIT)
        if p.stdout.strip() != "paused":
            fail("%s: no rendezvous on the FIFO: %r" % (what, p.stdout))

    def go(what):
        # ... and on with it: it reads the FIFO until a writer closes it
        paused(what)
        with open(fifo, "w") as f:
            f.write("go\n")

    def done_with(name, what):
        for f in ("unclaim." + name, "claim." + name):
            if os.path.exists(root + "/run/hpfilld/" + f):
                fail("%s: run/hpfilld/%s left" % (what, f))

    def daemon_with_claim(name, *args):
        # a daemon started (@args), then claim @name of 4 pages over the [Pool]'s 4, all free
        d = start(notify, [hpfilld, "--root", root, *args])
        notify.until("READY=1")
        rc, out = claim("claim", name, "--pool", "2M:node0=8M")
        if rc != 0 or nr() != 8:
            fail("claim %s: exit %d, %d pages: %s" % (name, rc, nr(), out))
        notify.until("READY=1")
        free(8)
        return d

    def started_gives_back(name, what):
        # a daemon started: its first fill gives back the pending give-back of claim @name
        d = start(notify, [hpfilld, "--root", root])
        notify.until("READY=1")
        if nr() != 4:
            fail("%s: %d pages, expected the [Pool]'s 4" % (what, nr()))
        done_with(name, what)
        stop(d, notify)

    def unclaim_killed(name, fifo=fifo):
        # hpfilld unclaim @name killed (a test hook of hpfilld-hooked, on @fifo) after it removed
        # the claim's file, before it asked the daemon: the give-back left pending
        u = subprocess.Popen([hooked, "unclaim", name, "--root", root], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=dict(os.environ, HPFILLD_TEST_UNCLAIMED_FIFO=fifo))
        paused("unclaim " + name, fifo)
        u.kill()
        u.communicate(timeout=LIMIT)
        mark = root + "/run/hpfilld/unclaim." + name
        if os.path.exists(claims + "50-claim-%s.conf" % name) or not os.path.exists(mark):
            fail("unclaim %s killed after the removal: its file still there, or no give-back pending" % name)

    def claim(*args):
        p = subprocess.run([hpfilld, *args, "--root", root, "-v"], capture_output=True, text=True, timeout=LIMIT)
        return p.returncode, p.stdout + p.stderr

    d = start(notify, [hpfilld, "--root", root])
    notify.until("READY=1")
    if nr() != 4:
        fail("the daemon's first fill: %d pages" % nr())

    rc, out = claim("claim", "vm1", "--pool", "2M:node0=16M")
    if rc != 0 or "through the daemon" not in out:
        fail("claim vm1: exit %d: %s" % (rc, out))
    # the answer came when the fill was done: the pages are there now
    if nr() != 12:
        fail("after claim vm1 returned: %d pages, expected 4 + 8" % nr())
    # each request's reload read (a service manager reads them; the daemon waits for it when
    # its queue is full)
    notify.until("READY=1")

    # a bad claim: refused by the daemon's plan, the file put back (none), the pool as it was
    rc, out = claim("claim", "vm2", "--pool", "2M:node7=2")
    if rc != 2 or "node7 does not exist" not in out or "claim vm2: refused" not in out:
        fail("claim vm2 (node7): exit %d: %s" % (rc, out))
    if os.path.exists(claims + "50-claim-vm2.conf"):
        fail("a refused claim left its file")
    if nr() != 12:
        fail("after a refused claim: %d pages" % nr())
    notify.until("READY=1")  # the refused one
    notify.until("READY=1")  # the files put back

    # unclaim: the daemon gives back what vm1 held (the fake kernel's pages are all free)
    free(12)
    rc, out = claim("unclaim", "vm1")
    if rc != 0:
        fail("unclaim vm1: exit %d: %s" % (rc, out))
    if nr() != 4:
        fail("after unclaim vm1: %d pages, expected the [Pool]'s 4" % nr())
    if os.path.exists(claims + "50-claim-vm1.conf"):
        fail("unclaim left the file")
    notify.until("READY=1")

    # short: the fake kernel grants 6 pages at most. Exit 3, one line naming the claim and the
    # pool, the claim kept
    write(pool + "nr_hugepages.fake-max", "6\n")
    rc, out = claim("claim", "big", "--pool", "2M:node0=8")
    if rc != 3 or "claim big: short of pages: 2M pool: 6/12 pages" not in out:
        fail("claim big (short): exit %d: %s" % (rc, out))
    if not os.path.exists(claims + "50-claim-big.conf") or nr() != 6:
        fail("a short claim: its file gone, or %d pages" % nr())
    notify.until("READY=1")
    os.unlink(pool + "nr_hugepages.fake-max")
    free(6)
    rc, out = claim("unclaim", "big")
    if rc != 0 or nr() != 4:
        fail("unclaim big: exit %d, %d pages: %s" % (rc, nr(), out))
    notify.until("READY=1")
    err = stop(d, notify)
    if err.count("as asked on the control socket") != 6:
        fail("the daemon did not apply the 6 requests itself: %s" % err)

    # a daemon whose command line leaves the files' claims out (--config): a claim is refused
    # (exit 2, its file gone), not a success without its pages
    d = start(notify, [hpfilld, "--root", root, "--config", root + "/etc/hpfilld.conf"])
    notify.until("READY=1")
    rc, out = claim("claim", "vm5", "--pool", "2M:node0=2")
    if rc != 2 or "leaves the claims of the files out" not in out:
        fail("claim vm5 with a daemon of --config: exit %d: %s" % (rc, out))
    if os.path.exists(claims + "50-claim-vm5.conf") or nr() != 4:
        fail("a claim the daemon left out changed something: %d pages" % nr())
    notify.until("READY=1")
    notify.until("READY=1")
    stop(d, notify)

    # a claim the daemon's plan refuses (more than the node's memory) beside pages above the
    # targets (6 added by hand): refused, and the files put back give nothing back (the refused
    # configuration is not the one in use, whose claims the next reload compares with)
    d = start(notify, [hpfilld, "--root", root])
    notify.until("READY=1")
    with open(pool + "nr_hugepages", "w") as f:
        f.write("10\n")
    free(10)
    rc, out = claim("claim", "huge", "--pool", "2M:node0=100000G")
    if rc != 2 or "more than its memory" not in out:
        fail("claim huge: exit %d: %s" % (rc, out))
    m = notify.until("READY=1")  # the refused one
    if "STATUS=Reload failed, the configuration in use stays: " not in m:
        fail("a reload its plan refused: %r" % m)
    notify.until("READY=1")  # the files put back
    if nr() != 10:
        fail("a claim the plan refused, put back, gave back %d of the pages above the targets" % (10 - nr()))
    stop(d, notify)

    # an unclaim whose fill fails before any write (another hpfilld holds the host lock, and
    # this daemon waits for it --lock-timeout 0): exit 1, saying the give-back is pending; the
    # claim's file is gone, its pages (and record) stay; the next fill (a SIGHUP) gives them back
    with open(pool + "nr_hugepages", "w") as f:
        f.write("4\n")
    d = daemon_with_claim("vm6", "--lock-timeout", "0")
    lock = os.fdopen(os.open(root + "/run/hpfilld/host.lock", os.O_RDWR | os.O_CREAT, 0o600), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    rc, out = claim("unclaim", "vm6")
    if rc != 1 or "give-back is pending" not in out:
        fail("unclaim vm6 with the host lock held elsewhere: exit %d: %s" % (rc, out))
    notify.until("READY=1")
    if nr() != 8 or os.path.exists(claims + "50-claim-vm6.conf"):
        fail("unclaim vm6 that failed: %d pages, or its file still there" % nr())
    if not os.path.exists(root + "/run/hpfilld/unclaim.vm6"):
        fail("no pending give-back of vm6 in run/hpfilld")
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    # the next fill, a reload, does the give-back
    d.send_signal(signal.SIGHUP)
    notify.until("READY=1")
    if nr() != 4:
        fail("the reload after the failed unclaim left %d pages, expected the [Pool]'s 4" % nr())
    done_with("vm6", "the reload after the failed unclaim")
    stop(d, notify)

    # an unclaim killed (a test hook of hpfilld-hooked) after it removed the claim's file, before
    # it asked the daemon: the give-back stays pending, and the next daemon's start does it
    d = daemon_with_claim("vm7")
    unclaim_killed("vm7")
    stop(d, notify)
    if nr() != 8:
        fail("unclaim vm7 killed before it asked the daemon: %d pages" % nr())
    started_gives_back("vm7", "the daemon's start after unclaim vm7 was killed")

    # the daemon killed in the fill of an unclaim (paused where it takes the host lock): the
    # unclaim is exit 1, its give-back pending; the next daemon's start does it
    d = start(notify, [hooked, "--root", root], HPFILLD_TEST_PLANNED_FIFO=fifo)
    go("the daemon's first fill")
    notify.until("READY=1")
    c = subprocess.Popen([hpfilld, "claim", "vm8", "--pool", "2M:node0=8M", "--root", root], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    go("claim vm8")
    out = c.communicate(timeout=LIMIT)[0]
    if c.returncode != 0 or nr() != 8:
        fail("claim vm8: exit %d, %d pages: %s" % (c.returncode, nr(), out))
    notify.until("READY=1")
    free(8)
    u = subprocess.Popen([hpfilld, "unclaim", "vm8", "--root", root], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    paused("the daemon's fill of unclaim vm8")
    d.kill()
    d.wait(timeout=LIMIT)
    out = u.communicate(timeout=LIMIT)[0]
    if u.returncode != 1 or "give-back is pending" not in out:
        fail("unclaim vm8 whose daemon died: exit %d: %s" % (u.returncode, out))
    if nr() != 8:
        fail("a daemon killed before its fill: %d pages" % nr())
    started_gives_back("vm8", "the daemon's start after one died in unclaim vm8's fill")

    # a daemon's first fill on a configuration read before an unclaim removed the claim's file
    # (the daemon held where it takes the host lock; the unclaim killed before it asked it): that
    # fill still has claim vm9, gives nothing back, and must leave the give-back pending; the
    # next daemon's start does it
    d = daemon_with_claim("vm9")
    stop(d, notify)
    d = start(notify, [hooked, "--root", root], HPFILLD_TEST_PLANNED_FIFO=fifo)
    paused("the daemon's first fill, vm9 in its configuration")
    fifo2 = work + "/fifo2"
    os.mkfifo(fifo2)
    unclaim_killed("vm9", fifo2)
    with open(fifo, "w") as f:
        f.write("go\n")
    notify.until("READY=1")
    if nr() != 8:
        fail("the daemon's first fill with vm9 in its configuration: %d pages, expected 8" % nr())
    if not os.path.exists(root + "/run/hpfilld/unclaim.vm9"):
        fail("the daemon's first fill, on a configuration older than unclaim vm9, took its give-back for done")
    stop(d, notify)
    started_gives_back("vm9", "the daemon's start after the one whose configuration had vm9")

    # the claim made anew through the daemon after its unclaim was killed: the daemon's fill of
    # that claim takes the give-back pending for done (the record is the claim's again)
    d = daemon_with_claim("vm10")
    unclaim_killed("vm10")
    rc, out = claim("claim", "vm10", "--pool", "2M:node0=8M")
    if rc != 0 or nr() != 8 or os.path.exists(root + "/run/hpfilld/unclaim.vm10"):
        fail("claim vm10 made anew through the daemon: exit %d, %d pages, or its give-back left pending: %s"
             % (rc, nr(), out))
    notify.until("READY=1")
    rc, out = claim("unclaim", "vm10")
    if rc != 0 or nr() != 4:
        fail("unclaim vm10 made anew: exit %d, %d pages: %s" % (rc, nr(), out))
    done_with("vm10", "unclaim vm10 made anew")
    notify.until("READY=1")
    stop(d, notify)


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-claim-")
