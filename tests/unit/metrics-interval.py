#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""MetricsInterval= in seconds: the daemon's timer for MetricsFile= runs every N seconds, as the
kernel says (the timerfd's it_interval in /proc/PID/fdinfo), not N milliseconds; a reload applies
a new value, and 0 (or no MetricsFile=) arms none. On a fake tree under --root; read from the
timer itself, never by waiting for it to fire."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import LIMIT, fail, run, start, stop, write  # noqa: E402


def intervals(pid):
    """The it_interval of each of @pid's periodic timerfds, as (seconds, nanoseconds) (one-shot
    timers, interval 0, left out)."""
    found = []
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) != "anon_inode:[timerfd]":
                continue
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                m = re.search(r"^it_interval: \((\d+), (\d+)\)$", f.read(), re.M)
        except OSError:
            continue
        if m and m.group(1, 2) != ("0", "0"):
            found.append((int(m.group(1)), int(m.group(2))))
    return found


def test(hpfilld, work, root, notify):
    def conf(interval):
        write(root + "/etc/hpfilld.conf", "[Fill]\nMetricsFile=%s/hpfilld.prom\nMetricsInterval=%s\n"
              "[Pool]\nPageSize=2M\nAmount=node0=4\n" % (work, interval))

    def reload():
        p = subprocess.run([hpfilld, "reload", "--root", root], capture_output=True, text=True, timeout=LIMIT)
        if p.returncode != 0:
            fail("hpfilld reload: exit %d: %s" % (p.returncode, p.stderr))
        notify.until("READY=1")

    conf(7)
    d = start(notify, [hpfilld, "--root", root])
    notify.until("READY=1")
    if (7, 0) not in intervals(d.pid):
        fail("MetricsInterval=7: the daemon's timers run every %s (seconds, ns), none every 7 s" % intervals(d.pid))
    print("ok: MetricsInterval=7: a timer every 7 s")
    conf(86400)
    reload()
    got = intervals(d.pid)
    if (86400, 0) not in got or (7, 0) in got:
        fail("MetricsInterval=86400 after a reload: timers every %s" % got)
    print("ok: a reload to MetricsInterval=86400: a timer every day, the 7 s one gone")
    conf(0)
    reload()
    if intervals(d.pid):
        fail("MetricsInterval=0: timers every %s, expected none" % intervals(d.pid))
    print("ok: MetricsInterval=0: no periodic timer")
    stop(d, notify)


run(test, os.environ["HPFILLD"], "hpfilld-metrics-interval-")
