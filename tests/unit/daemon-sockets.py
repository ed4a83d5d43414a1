#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The daemon's sockets, on a fake tree under --root: no uevent socket (memory coming online
on this host says nothing of the tree: a hotplug on the host, or a root test's synthetic
"online", would refill it behind the test's back); the control socket root's, mode 0600.
Waits on the daemon's own messages, never on the clock."""
import os
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import fail, run, start, stop, write  # noqa: E402

NETLINK_KOBJECT_UEVENT = 15


def netlink_protocols(pid):
    """The netlink protocols of @pid's sockets (by inode, from /proc/net/netlink)."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    with open("/proc/net/netlink") as f:
        next(f)
        return {int(c[1]) for c in (line.split() for line in f) if c[9] in inodes}


def test(hpfilld, work, root, notify):
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=4\n")
    path = root + "/run/hpfilld/control"
    d = start(notify, [hpfilld, "--root", root])
    notify.until("READY=1")

    if NETLINK_KOBJECT_UEVENT in netlink_protocols(d.pid):
        fail("a daemon on a tree under --root listens for the host's uevents")
    st = os.stat(path)
    if not stat.S_ISSOCK(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o600 or st.st_uid != os.geteuid():
        fail("the control socket: mode %o, owner %d" % (st.st_mode, st.st_uid))

    stop(d, notify)


run(test, os.environ["HPFILLD"], "hpfilld-sockets-")
