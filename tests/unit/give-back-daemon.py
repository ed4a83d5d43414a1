#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hpfilld give-back refuses while the daemon runs (it holds run/hpfilld/daemon.lock for its
life), changing nothing, and gives back once it has stopped, keeping the claims of the --config
FILE that daemon ran with. On a fake tree under --root;
waits on the daemon's own messages (with a time limit against hangs)."""
import fcntl
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, run, start, stop, write  # noqa: E402


def give_back(hpfilld, root):
    return subprocess.run([hpfilld, "give-back", "--root", root], capture_output=True, text=True, timeout=LIMIT)


def test(hpfilld, work, root, notify):
    pool = root + "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/"
    # a one-off's pages, all free (the fake kernel leaves free_hugepages as written)
    subprocess.run([hpfilld, "--root", root, "--once", "--pool", "2M:node0=8"], check=True, stdout=subprocess.DEVNULL)
    write(pool + "free_hugepages", "8\n")
    d = start(notify, [hpfilld, "--root", root, "--pool", "2M:node0=8"])
    notify.until("READY=1")
    g = give_back(hpfilld, root)
    if g.returncode != 1 or "The hpfilld daemon runs" not in g.stderr or "stop it first" not in g.stderr:
        fail("give-back beside the daemon: exit %d, %s%s" % (g.returncode, g.stdout, g.stderr))
    with open(pool + "nr_hugepages") as f:
        if f.read().strip() != "8":
            fail("give-back beside the daemon changed the pool")
    stop(d, notify)
    g = give_back(hpfilld, root)
    if g.returncode != 0 or "2M pool of node0: 8 pages given back (8 -> 0)" not in g.stdout:
        fail("give-back after the daemon: exit %d, %s%s" % (g.returncode, g.stdout, g.stderr))
    # a daemon that starts while a give-back holds the mark (exclusive, as its probe found no
    # daemon) waits for it, then holds the mark: a later give-back sees it
    with open(root + "/run/hpfilld/daemon.lock", "rb") as mark:
        fcntl.flock(mark, fcntl.LOCK_EX)
        d = start(notify, [hpfilld, "--root", root, "--pool", "2M:node0=8"])
        notify.until("STATUS=Waiting for hpfilld give-back to end")
    notify.until("READY=1")
    g = give_back(hpfilld, root)
    if g.returncode != 1 or "The hpfilld daemon runs" not in g.stderr:
        fail("give-back beside a daemon that started during a give-back: exit %d, %s%s" % (g.returncode, g.stdout,
                                                                                           g.stderr))
    stop(d, notify)
    g = give_back(hpfilld, root)
    # a one-off's pages taken (an admin's echo 0), the daemon's fill then puts 8 back, an admin
    # adds 8: the one-off's ledger, seen at the daemon's fill, counts none; 8 given back, not 16
    def set_pool(n):
        for f in (pool + "nr_hugepages", pool + "free_hugepages",
                  root + "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"):
            write(f, "%d\n" % n)
    subprocess.run([hpfilld, "--root", root, "--once", "--pool", "2M:node0=8"], check=True, stdout=subprocess.DEVNULL)
    set_pool(0)
    d = start(notify, [hpfilld, "--root", root, "--pool", "2M:node0=8"])
    notify.until("READY=1")
    stop(d, notify)
    set_pool(16)
    g = give_back(hpfilld, root)
    if g.returncode != 0 or "2M pool of node0: 8 pages given back (16 -> 8)" not in g.stdout:
        fail("give-back after a one-off's pages were taken and the daemon filled: exit %d, %s%s" % (
            g.returncode, g.stdout, g.stderr))
    # a one-off that waits for the host lock reads the one-offs' ledger once it holds it: here
    # another fill (as the daemon's, from 0 to 8) counted in it meanwhile; a copy read before
    # would count its 8 pages again
    set_pool(0)
    for f in ("ledger", "ledger-once"):
        if os.path.exists(root + "/run/hpfilld/" + f):
            os.unlink(root + "/run/hpfilld/" + f)
    subprocess.run([hpfilld, "--root", root, "--once", "--pool", "2M:node0=8"], check=True, stdout=subprocess.DEVNULL)
    set_pool(0)
    with open(root + "/run/hpfilld/host.lock", "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = subprocess.Popen([hpfilld, "--root", root, "--once", "--pool", "2M:node0=8"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        for line in p.stderr:
            if "Another fill is running" in line:
                break
        else:
            fail("the one-off did not wait for the host lock")
        set_pool(8)
        write(root + "/run/hpfilld/ledger-once", "2097152 0 0 8\n")
    p.communicate(timeout=LIMIT)
    with open(root + "/run/hpfilld/ledger-once") as f:
        once = f.read()
    if once != "":
        fail("the one-off's ledger, after another fill counted in it while the one-off waited: %r" % once)

    # a daemon started with --config FILE records it (run/hpfilld/daemon-config): give-back, once
    # that daemon has stopped, keeps FILE's claims, not the default files' (here none)
    set_pool(0)
    for f in ("ledger", "ledger-once"):
        if os.path.exists(root + "/run/hpfilld/" + f):
            os.unlink(root + "/run/hpfilld/" + f)
    conf, record = work + "/other.conf", root + "/run/hpfilld/daemon-config"
    write(conf, "[Pool]\nPageSize=2M\nAmount=node0=4\n[Claim]\nName=vm1\nPageSize=2M\nAmount=4\n")
    d = start(notify, [hpfilld, "--root", root, "--config", conf])
    notify.until("READY=1")
    stop(d, notify)
    with open(record) as f:
        if f.read() != conf + "\n":
            fail("the daemon's record of --config %s: %r" % (conf, open(record).read()))
    set_pool(8)
    g = give_back(hpfilld, root)
    if (g.returncode != 0 or "The claims of %s, the configuration the daemon of this boot last ran with" % conf not in g.stderr
            or "2M pool of node0: 4 pages given back (8 -> 4); 4 kept for the claims" not in g.stdout
            or "1 claim kept (hpfilld unclaim NAME gives one back): vm1" not in g.stdout):
        fail("give-back after a daemon with --config: exit %d, %s%s" % (g.returncode, g.stdout, g.stderr))
    # that file gone: its claims not known, nothing given back (exit 2); --config names another
    set_pool(4)
    os.rename(conf, conf + ".gone")
    g = give_back(hpfilld, root)
    if (g.returncode != 2 or "the claims of %s cannot be told: nothing given back, nothing changed" % conf not in g.stderr
            or "the --config the daemon last ran with: give-back --config FILE names the file to read" not in g.stderr):
        fail("give-back with the daemon's --config gone: exit %d, %s%s" % (g.returncode, g.stdout, g.stderr))
    with open(pool + "nr_hugepages") as f:
        if f.read().strip() != "4":
            fail("give-back with the daemon's --config gone changed the pool")
    write(work + "/none.conf", "")
    g = subprocess.run([hpfilld, "give-back", "--root", root, "--config", work + "/none.conf"], capture_output=True,
                       text=True, timeout=LIMIT)
    if g.returncode != 0 or "2M pool of node0: 4 pages given back (4 -> 0)" not in g.stdout or "claim" in g.stdout:
        fail("give-back --config: exit %d, %s%s" % (g.returncode, g.stdout, g.stderr))
    # a daemon of the default files removes the record
    d = start(notify, [hpfilld, "--root", root, "--pool", "2M:node0=4"])
    notify.until("READY=1")
    stop(d, notify)
    if os.path.exists(record):
        fail("a daemon without --config left the record of an earlier one's: %r" % open(record).read())


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-give-back-")
