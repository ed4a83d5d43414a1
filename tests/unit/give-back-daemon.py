#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld give-back beside the daemon, on a fake tree under --root whose fake kernel keeps the
pools' counters: while the daemon runs (the state records it) give-back refuses, exit 1, and
changes nothing (the state file and the pools as they were); once it has stopped it gives back
the pages of every owner but the claims (the configuration's, a one-off run's), never the
admin's. A daemon started with --config FILE leaves nothing behind that changes which claims
give-back keeps: the state's claims, never FILE's [Claim]s, whether FILE is still there or not.
give-back --config is accepted and ignored. Waits on the daemon's own messages and the
commands' exits."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, POOL, fail, fake_pools, hpfilld, nr, run, set_nr, shares, start, state, stop, write  # noqa: E402


def test(hpfilld_bin, work, root, notify):
    fake_pools(root)
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=12\n")

    def cmd(*args):
        return hpfilld(hpfilld_bin, root, *args)

    def tree():
        """What give-back may change: the state, the pool's counters"""
        files = [root + "/run/hpfilld/state"] + [root + POOL + f for f in ("nr_hugepages", "free_hugepages",
                                                                            "surplus_hugepages")]
        return {f: open(f).read() for f in files}

    def gives_back(what, args, given, before, after, kept):
        rc, out = cmd("give-back", *args)
        if (rc != 0 or "2M pool of node0: %d pages given back (%d -> %d)" % (given, before, after) not in out
                or "1 claim kept (hpfilld unclaim NAME gives one back): %s\n" % kept not in out):
            fail("%s: exit %d, expected 0, %d pages given back (%d -> %d), claim %s kept: %s" % (
                what, rc, given, before, after, kept, out))
        if nr(root) != after:
            fail("%s: %d pages left, expected %d" % (what, nr(root), after))
        return out

    # a one-off run's 8, the daemon's 4 over them (its 12 count them), the admin's 2, claim vmc's
    # 4 on top (its fill sees the admin's: the state is up to date)
    rc, out = cmd("--once", "--pool", "2M:node0=8")
    if rc != 0 or nr(root) != 8:
        fail("--once --pool 2M:node0=8: exit %d, %d pages: %s" % (rc, nr(root), out))
    d = start(notify, [hpfilld_bin, "--root", root])
    notify.until("READY=1")
    set_nr(root, 14)
    rc, out = cmd("claim", "vmc", "--pool", "2M:4")
    if rc != 0:
        fail("claim vmc: exit %d: %s" % (rc, out))
    if shares(root) != {"once": (8, 8), "config": (4, 12), "claim:vmc": (4, 4)} or nr(root) != 18:
        fail("before give-back: %d pages, state:\n%s" % (nr(root), state(root)))

    # a second daemon on the same host: refused at its start (the first answers on the control
    # socket), exit 1; it changes nothing (the first's socket, its line in the state) and the
    # first still takes a reload
    before = tree()
    second = subprocess.run([hpfilld_bin, "--root", root], env=dict(os.environ, NOTIFY_SOCKET=""),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=LIMIT)
    if second.returncode != 1 or "Another hpfilld daemon runs" not in second.stdout:
        fail("a second daemon: exit %d, expected 1: %s" % (second.returncode, second.stdout))
    if tree() != before or "\ndaemon %d " % d.pid not in state(root):
        fail("a second daemon changed the state or the pool:\n%s" % state(root))
    rc, out = cmd("reload")
    if rc != 0:
        fail("reload after a second daemon was refused: exit %d: %s" % (rc, out))
    notify.until("READY=1")

    # the daemon runs: refused, nothing changed
    before = tree()
    rc, out = cmd("give-back")
    if rc != 1 or "The hpfilld daemon runs (pid %d): stop it first" % d.pid not in out:
        fail("give-back beside the daemon: exit %d, expected 1: %s" % (rc, out))
    if tree() != before:
        fail("give-back beside the daemon changed %s" % [f for f, t in tree().items() if before[f] != t])

    # stopped (ReleaseOnStop=no): the one-off's 8 and the configuration's 4 given back, not
    # vmc's nor the admin's; the wants of both dropped
    stop(d, notify)
    gives_back("give-back after the daemon stopped", (), 12, 18, 6, "vmc")
    if any(o in shares(root) and shares(root)[o] != (0, 0) for o in ("once", "config")):
        fail("give-back left the one-off's or the configuration's pages or wants:\n%s" % state(root))

    # a daemon of --config FILE, whose [Claim] vm1 is the configuration's: its 8 given back once it
    # has stopped, only vmc kept, with FILE there and with FILE gone
    other = work + "/other.conf"
    for gone in (False, True):
        write(other, "[Pool]\nPageSize=2M\nAmount=node0=4\n[Claim]\nName=vm1\nPageSize=2M\nAmount=node0=4\n")
        set_nr(root, 6)
        d = start(notify, [hpfilld_bin, "--root", root, "--config", other])
        notify.until("READY=1")
        if nr(root) != 12:
            fail("the daemon of --config: %d pages, expected vmc's 4, the admin's 2, FILE's 6 more" % nr(root))
        stop(d, notify)
        if gone:
            os.unlink(other)
        gives_back("give-back after a daemon of --config (%s)" % ("gone" if gone else "there"), (), 6, 12, 6, "vmc")

    # --config: a notice, and the same give-back (the state's claims, not FILE's)
    write(other, "[Claim]\nName=vmo\nPageSize=2M\nAmount=node0=10\n")
    rc, out = cmd("--once", "--pool", "2M:node0=10")
    if rc != 0 or nr(root) != 14:
        fail("--once --pool 2M:node0=10: exit %d, %d pages: %s" % (rc, nr(root), out))
    out = gives_back("give-back --config", ("--config", other), 8, 14, 6, "vmc")
    if "give-back --config: not needed any more (the claims are in the state), ignored" not in out:
        fail("give-back --config: no notice that it is ignored: %s" % out)


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-give-back-")
