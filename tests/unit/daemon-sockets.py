#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The daemon's sockets, on a fake tree under --root: no uevent socket (memory coming online
on this host says nothing of the tree: a hotplug on the host, or a root test's synthetic
"online", would refill it behind the test's back); the control socket root's, mode 0600; a
client that connects and says nothing holds up neither a reload nor SIGTERM; the socket takes
"apply" alone (claims do not go through the daemon): a request too long, with a NUL in it, or
another, is refused as unknown. A daemon that stops removes its socket, but not another's
that took its place at the path.
Waits on the daemon's own messages and on the commands' exits, never on the clock."""
import os
import select
import socket
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, nr, run, start, stop, write  # noqa: E402

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


def still_open(s):
    """Whether the daemon has left connection @s open (nothing to read, no hang-up)."""
    return not select.select([s], [], [], 0)[0]


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

    # a client that connects and says nothing: a reload is served all the same (its fill done:
    # the new configuration's pages there), and the silent one is still open when it returns
    # (not closed after a wait for its request)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    silent.connect(path)
    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=6\n")
    p = subprocess.run([hpfilld, "reload", "--root", root], capture_output=True, text=True, timeout=LIMIT)
    if p.returncode != 0 or nr(root) != 6:
        fail("reload beside a silent client: exit %d, %d pages: %s" % (p.returncode, nr(root), p.stderr))
    notify.until("READY=1")
    if not still_open(silent):
        fail("the daemon closed a client that said nothing yet (it waited for it)")

    # too long (its head "apply" would be a request of its own), a NUL in one, and requests of
    # claims (there are none: claims do not go through the daemon)
    for req in (b"apply" + b"\0" * 200, b"apply\0x", b"apply " + b"v" * 300, b"claim vm1", b"unclaim vm1"):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        c.connect(path)
        c.settimeout(LIMIT)
        c.send(req)
        answer = c.recv(4096)
        c.close()
        if answer != b"2\nunknown request":
            fail("request %r: answered %r" % (req[:12], answer))

    # SIGTERM with the silent client still there: the daemon stops
    if not still_open(silent):
        fail("the silent client closed before SIGTERM")
    stop(d, notify)
    silent.close()
    if os.path.lexists(path):
        fail("the daemon stopped and left its control socket %s" % path)

    # another's socket at the path while the daemon runs: left where it is when the daemon stops
    d = start(notify, [hpfilld, "--root", root])
    notify.until("READY=1")
    os.unlink(path)
    other = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    other.bind(path)
    ino = os.lstat(path).st_ino
    stop(d, notify)
    if not os.path.lexists(path) or os.lstat(path).st_ino != ino:
        fail("the daemon stopped and removed the socket another bound at %s" % path)
    other.close()


run(test, os.environ["HPFILLD"], "hpfilld-sockets-")
