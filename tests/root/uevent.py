#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Memory hotplug uevents: a forged one, sent by this process straight to the daemon's
NETLINK_KOBJECT_UEVENT port (unicast: never to group 1, which would reach every uevent
listener of the host, udevd among them), starts no refill; the kernel's own (a synthetic
"online" of a memory block, written to its uevent file) does; a second one within the interval
waits for it, and is one refill when the interval is over: two in all. Waits on the daemon's
own messages (with a time limit against hangs), never on the clock."""
import glob
import os
import signal
import socket
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from notify import LIMIT, fail, make_until  # noqa: E402

NETLINK_KOBJECT_UEVENT = 15


def uevent_port(pid):
    """The port id of @pid's uevent socket, from /proc/net/netlink, by the socket's inode."""
    inodes = set()
    for fd in glob.glob("/proc/%d/fd/*" % pid):
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    with open("/proc/net/netlink") as f:
        next(f)
        for line in f:
            c = line.split()
            if int(c[1]) == NETLINK_KOBJECT_UEVENT and c[9] in inodes:
                return int(c[2])
    fail("no uevent socket of pid %d in /proc/net/netlink" % pid)


def main():
    hpfilld, node, base = sys.argv[1], sys.argv[2], int(sys.argv[3])
    blocks = sorted(glob.glob("/sys/devices/system/memory/memory*/uevent"))
    if not blocks:
        print("SKIP: no memory blocks in /sys/devices/system/memory")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="hpfilld-uevent-")
    path = os.path.join(work, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(LIMIT)
    messages = []
    until = make_until(sock, messages)

    def fill_done():
        """Until the STATUS= that ends a fill: its result, neither its start nor progress."""
        while True:
            m = until("STATUS=")
            if any(l.startswith("STATUS=") and not l.startswith("STATUS=Filling") for l in m.split("\n")):
                return m

    with open(os.path.join(work, "a.conf"), "w") as f:
        f.write("[Pool]\nPageSize=2M\nAmount=node%s=%d\n" % (node, base + 20))
    d = subprocess.Popen([hpfilld, "--config", os.path.join(work, "a.conf")],
                         env=dict(os.environ, NOTIFY_SOCKET=path),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        until("READY=1")
        port = uevent_port(d.pid)
        forged = (b"online@/devices/system/memory/memory0\0ACTION=online\0"
                  b"DEVPATH=/devices/system/memory/memory0\0SUBSYSTEM=memory\0SEQNUM=1\0")
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_KOBJECT_UEVENT)
        s.bind((0, 0))
        s.sendto(forged, (port, 0))
        s.close()
        # a reload after it: the forged uevents are ahead of the signal (the daemon takes a
        # uevent before a signal in one wake-up), so a refill of theirs would come first
        n = len(messages)
        d.send_signal(signal.SIGHUP)
        until("RELOADING=1")
        if any("STATUS=Filling the pools" in m for m in messages[n:-1]):
            fail("a forged uevent started a fill: %r" % messages[n:])
        until("READY=1")

        # the kernel's own: a refill; a second at once waits for the interval (the daemon says
        # so in its log, read once it has stopped)
        with open(blocks[0], "w") as f:
            f.write("online")
        until("STATUS=Filling the pools")
        # the end of that fill: its progress (STATUS=Filling: ...) is not the next fill's
        fill_done()
        n = len(messages)
        with open(blocks[0], "w") as f:
            f.write("online")
        # again a reload behind it, as a point the daemon reaches after it read the uevent
        d.send_signal(signal.SIGHUP)
        until("RELOADING=1")
        if any("STATUS=Filling the pools" in m for m in messages[n:-1]):
            fail("a second uevent within the interval filled at once: %r" % messages[n:])
        until("READY=1")
        # the put-off refill, when the interval is over: the daemon's next fill, and its last
        n = len(messages)
        until("STATUS=Filling the pools")
        fill_done()
        fills = sum("STATUS=Filling the pools" in m.split("\n") for m in messages[n:])
        if fills != 1:
            fail("not one put-off refill: %r" % messages[n:])
        d.send_signal(signal.SIGTERM)
        rc = d.wait(timeout=LIMIT)
        err = d.stderr.read()
        if rc != 0:
            fail("exit status %d; stderr: %s" % (rc, err))
        if err.count("Memory came online, filling again") != 2:
            fail("not two refills on memory coming online (one at once, one put off): %s" % err)
        if "Memory came online; filling again in " not in err:
            fail("the second uevent was not put off: %s" % err)
    finally:
        if d.poll() is None:
            d.kill()
            d.wait()
        sock.close()
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)
    print("PASS")


main()
