#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld claim and unclaim beside a running daemon, on a fake tree under --root whose fake
kernel keeps the pools' counters (its fake-pools file), with ReleaseOnStop= on and off. A claim
does not go through the daemon: it adds its own pages under the host lock (exit 0 once they are
there). The admin lowers the pool: the daemon's next fill (hpfilld reload, SIGHUP) adds the pages
back for whoever lacks them, the claim included. unclaim gives the claim's pages back, and no
later fill of the daemon adds them again, not even one that waited for the host lock while the
unclaim ran (a test hook holds it there). A daemon of --config FILE or of --pool refills the
state's claims all the same. SIGTERM gives back the configuration's pages with ReleaseOnStop=yes
(never a claim's, never the admin's), nothing without.
Waits on the daemon's own messages, the test hook's rendezvous and the commands' exits, never on
the clock."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import (LIMIT, Rendezvous, fail, fake_pools, hpfilld, need_hooked, nr, run, set_nr, shares,  # noqa: E402
                       start, state, stop, write)


def config(release, amount):
    return "[Fill]\nReleaseOnStop=%s\n[Pool]\nPageSize=2M\nAmount=node0=%d\n" % ("yes" if release else "no", amount)


def expect(root, what, pages, **owners):
    """The pool holds @pages; each owner of @owners has (held, want) of it in the state (None:
    none, or nothing held nor wanted)."""
    have = shares(root)
    for o, hw in owners.items():
        o = o.replace("claim_", "claim:")
        if have.get(o, (0, 0)) != (hw or (0, 0)):
            fail("%s: %s holds/wants %s, expected %s; state:\n%s" % (what, o, have.get(o), hw, state(root)))
    if nr(root) != pages:
        fail("%s: %d pages, expected %d; state:\n%s" % (what, nr(root), pages, state(root)))


def ok(what, rc_out, *said):
    rc, out = rc_out
    if rc != 0 or any(s not in out for s in said):
        fail("%s: exit %d, expected 0%s: %s" % (what, rc, " and %r" % (said,) if said else "", out))
    return out


def test(release, hpfilld_bin, work, root, notify):
    fake_pools(root)
    hooked = need_hooked()
    write(root + "/etc/hpfilld.conf", config(release, 10))

    def cmd(*args):
        return hpfilld(hpfilld_bin, root, *args)

    def reload(what):
        ok(what, cmd("reload"))
        notify.until("READY=1")

    d = start(notify, [hpfilld_bin, "--root", root])
    notify.until("READY=1")
    expect(root, "the daemon's first fill", 10, config=(10, 10))
    if "\ndaemon %d " % d.pid not in state(root):
        fail("the running daemon is not recorded in the state:\n%s" % state(root))

    # the claim adds its own pages itself: they are there when it returns, no reload of the daemon
    ok("claim vmx", cmd("claim", "vmx", "--pool", "2M:20", "-v"))
    expect(root, "claim vmx beside the daemon", 30, config=(10, 10), claim_vmx=(20, 20))

    # the admin lowers the pool (25 free pages freed): the config's 10 and 15 of the claim's left;
    # a reload adds them back for both
    set_nr(root, 5)
    if nr(root) != 5:
        fail("the fake kernel did not take the admin's write: %d pages" % nr(root))
    reload("reload after the admin lowered the pool to 5")
    expect(root, "the reload after the pool was lowered to 5", 30, config=(10, 10), claim_vmx=(20, 20))
    # and so does SIGHUP
    set_nr(root, 0)
    d.send_signal(signal.SIGHUP)
    notify.until("RELOADING=1")
    notify.until("READY=1")
    expect(root, "SIGHUP after the pool was lowered to 0", 30, config=(10, 10), claim_vmx=(20, 20))

    # unclaim gives back the claim's 20; the daemon's next fill does not add them again
    ok("unclaim vmx", cmd("unclaim", "vmx"), "unclaim vmx: 2M pool of node0: 20 pages given back (30 -> 10)")
    expect(root, "unclaim vmx", 10, config=(10, 10), claim_vmx=None)
    reload("reload after unclaim vmx")
    expect(root, "the reload after unclaim vmx", 10, config=(10, 10), claim_vmx=None)

    # a claim adds its own pages, not those the configuration lacks (the admin took 5 of them)
    set_nr(root, 5)
    ok("claim vmy", cmd("claim", "vmy", "--pool", "2M:6"))
    expect(root, "claim vmy, the configuration 5 short", 11, config=(5, 10), claim_vmy=(6, 6))

    # SIGTERM: with ReleaseOnStop=yes the configuration's 5 given back, not vmy's 6 nor the
    # admin's 3; without, nothing
    set_nr(root, 14)
    err = stop(d, notify)
    if release:
        expect(root, "SIGTERM with ReleaseOnStop=yes", 9, config=None, claim_vmy=(6, 6))
    else:
        expect(root, "SIGTERM with ReleaseOnStop=no", 14, config=(5, 10), claim_vmy=(6, 6))
    if "\ndaemon " in state(root):
        fail("the daemon that stopped is still recorded as running:\n%s" % state(root))
    # the reloads were the test's (hpfilld reload): no claim went through the daemon
    if err.count("as asked on the control socket") != 2:
        fail("the daemon did other requests than the test's 2 reloads: %s" % err)

    # a daemon of --config FILE refills the state's claim (the pool emptied first): FILE's 4 and
    # vmy's 6. Its reload held before the host lock (hooked: HPFILLD_TEST_PLANNED_FIFO) while
    # unclaim vmz gives vmz's 8 back: with the lock it does not add them again
    set_nr(root, 0)
    other = work + "/other.conf"
    write(other, config(release, 4))
    fifo = Rendezvous(work + "/planned")
    d = start(notify, [hooked, "--root", root, "--config", other], HPFILLD_TEST_PLANNED_FIFO=fifo.path)
    fifo.paused("the first fill of a daemon of --config")
    fifo.go()
    notify.until("READY=1")
    expect(root, "the first fill of a daemon of --config", 10, config=(4, 4), claim_vmy=(6, 6))
    ok("claim vmz", cmd("claim", "vmz", "--pool", "2M:8"))
    expect(root, "claim vmz", 18, config=(4, 4), claim_vmy=(6, 6), claim_vmz=(8, 8))
    d.send_signal(signal.SIGHUP)
    fifo.paused("the reload of the daemon of --config")
    ok("unclaim vmz while a reload waits", cmd("unclaim", "vmz"),
       "unclaim vmz: 2M pool of node0: 8 pages given back (18 -> 10)")
    fifo.go()
    notify.until("READY=1")
    expect(root, "a reload that waited while unclaim vmz gave its 8 back", 10, config=(4, 4), claim_vmy=(6, 6),
           claim_vmz=None)
    d.send_signal(signal.SIGTERM)
    notify.until("STOPPING=1")
    fifo.paused("the stop of the daemon of --config")
    fifo.go()
    if d.wait(timeout=LIMIT) != 0:
        fail("the daemon of --config: exit %d: %s" % (d.returncode, d.stderr.read()))
    expect(root, "the stop of the daemon of --config", 6 if release else 10, config=None if release else (4, 4),
           claim_vmy=(6, 6))

    # a daemon of --pool likewise: its 2 and vmy's 6, at its start and at a reload
    set_nr(root, 0)
    d = start(notify, [hpfilld_bin, "--root", root, "--pool", "2M:node0=2"])
    notify.until("READY=1")
    expect(root, "the first fill of a daemon of --pool", 8, config=(2, 2), claim_vmy=(6, 6))
    set_nr(root, 1)
    reload("reload of a daemon of --pool after the pool was lowered to 1")
    expect(root, "the reload of a daemon of --pool", 8, config=(2, 2), claim_vmy=(6, 6))
    stop(d, notify)
    expect(root, "the stop of the daemon of --pool", 6 if release else 8, config=None if release else (2, 2),
           claim_vmy=(6, 6))

    # a first fill that falls short (the kernel grants 9 pages of node0): the daemon exits 3,
    # says why to systemd, and gives back nothing even with ReleaseOnStop=yes (the restart goes
    # on from there)
    set_nr(root, 0)
    write(root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages.fake-max", "9\n")
    write(root + "/etc/hpfilld.conf", config(release, 10))
    d = start(notify, [hpfilld_bin, "--root", root])
    rc = d.wait(timeout=LIMIT)
    if rc != 3:
        fail("a first fill short of pages: exit %d, expected 3: %s" % (rc, d.stderr.read()))
    notify.until("ERRNO=")
    held = shares(root)
    if nr(root) != 9 or sum(h for h, _ in held.values()) != 9 or held.get("config", (0, 0))[1] != 10:
        fail("a daemon whose first fill fell short: %d pages, expected 9 all hpfilld's, the configuration "
             "wanting 10; state:\n%s" % (nr(root), state(root)))
    os.unlink(root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages.fake-max")

    # a first fill whose plan is refused: exit 2, nothing changed, and systemd told why
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node7=1\n")
    d = start(notify, [hpfilld_bin, "--root", root])
    rc = d.wait(timeout=LIMIT)
    if rc != 2:
        fail("a first fill of a refused plan: exit %d, expected 2: %s" % (rc, d.stderr.read()))
    m = notify.until("ERRNO=")
    if "STATUS=Failed (exit status 2): " not in m or "node7" not in m:
        fail("a refused first fill: no STATUS= saying why: %r" % m)
    if nr(root) != 9 or shares(root) != held:
        fail("a daemon whose first plan was refused changed the pool or the state: %d pages; state:\n%s" %
             (nr(root), state(root)))
    # ... but it is the last fill, for status, the metrics and their alerts
    rc, out = hpfilld(hpfilld_bin, root, "status")
    if rc != 0 or not any(l.startswith("Last fill: ") and l.endswith(", exit status 2") for l in out.split("\n")):
        fail("status after a daemon's refused start: exit %d: %s" % (rc, out))


if __name__ == "__main__":
    for release in (True, False):
        run(lambda *a: test(release, *a), os.environ["HPFILLD"], "hpfilld-claim-daemon-")
