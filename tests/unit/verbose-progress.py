#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-v during a fill: a pool's "N of M pages added so far" line when it has pages to add and has
added more since its last line, not at every tick: a pool at its target (0 of 0) says nothing,
and a fill held still (a test hook's rendezvous after its first step) says its count once. The
daemon on a fake tree; the ticks are counted by its STATUS= messages, one a tick."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import fail, run, start, stop  # noqa: E402


def test(hpfilld, work, root, notify):
    with open(root + "/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages", "w") as f:
        f.write("1\n")  # the 1G pool at its target: nothing to add
    fifo = work + "/pause"
    os.mkfifo(fifo)
    d = start(notify, [hpfilld, "-v", "--root", root, "--mode", "sysfs", "--pool", "2M:node0=20",
                       "--pool", "1G:node0=1"],
              HPFILLD_TEST_STEP_PAGES="10", HPFILLD_TEST_PAUSE_FIFO=fifo, HPFILLD_TEST_PAUSE_AFTER_STEPS="1")
    with open(fifo) as f:
        if f.read().strip() != "paused":
            fail("no rendezvous")
    # three ticks while the fill is held after its first step
    for _ in range(3):
        notify.until("STATUS=Filling: 2M 10/20 pages, 1G 0/0 pages")
    with open(fifo, "w") as f:
        f.write("go\n")
    notify.until("READY=1")
    err = stop(d, notify)
    lines = [l for l in err.split("\n") if "pages added so far" in l]
    if any("1G pool" in l for l in lines):
        fail("-v: lines for the 1G pool, which has nothing to add: %r" % lines)
    if sum("2M pool: 10 of 20 pages added so far" in l for l in lines) != 1:
        fail("-v: the 2M pool held at 10 of 20 pages, said other than once: %r" % lines)


if __name__ == "__main__":
    # the pause is a test hook: hpfilld-hooked (tests/hooks/hooks.h), built with the tests
    if not os.environ.get("HPFILLD_HOOKED"):
        print("needs HPFILLD_HOOKED, the binary with the test hooks (HPFILLD_TEST_PAUSE_FIFO): skipped")
        sys.exit(77)
    run(test, os.environ["HPFILLD_HOOKED"], "hpfilld-verbose-", (2048, 1048576))
