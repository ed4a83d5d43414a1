#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Commands racing each other, and commands killed, on a fake tree under --root whose fake kernel
keeps the pools' counters, made deterministic by the test hooks of hpfilld-hooked (a rendezvous
on a FIFO) and the fake kernel's kill at the Nth step:
- a `--once --shrink` that read the configuration, then waited for the host lock while a claim
  added its pages, gives none of them back; an `--once` that waited while an unclaim gave a
  claim's pages back does not add them again (each reads the claims under the lock);
- an unclaim killed where the claim is given back in the state, before its pages leave: the
  next command gives them back, a second unclaim finds no such claim or gives back what is
  left, never more than the claim held (nor the admin's pages);
- a claim, and a one-off --once --pool, killed before or after each of their steps (kernel writes
  and the state's saves): unclaim, and give-back, then give back all the killed command added,
  no more (the next command counts what it added as its owner's).
Waits on the rendezvous and the commands' exits, never on the clock."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import (LIMIT, Rendezvous, fail, fake_pools, hpfilld, need_hooked, nr, run, set_nr,  # noqa: E402
                       shares, state, write)

KILLED = -9


def test(hpfilld_bin, work, root, notify):
    fake_pools(root)
    hooked = need_hooked()
    fifo = Rendezvous(work + "/fifo")

    def cmd(*args, **env):
        return hpfilld(hpfilld_bin, root, *args, **env)

    def ok(what, rc_out, pages, *said):
        rc, out = rc_out
        if rc != 0 or nr(root) != pages or any(s not in out for s in said):
            fail("%s: exit %d, %d pages, expected 0, %d pages%s: %s\nstate:\n%s" % (
                what, rc, nr(root), pages, " and %r" % (said,) if said else "", out, state(root)))
        return out

    def hooked_paused(what, args, **env):
        """hpfilld-hooked @args, held at the rendezvous of @env's hook"""
        p = subprocess.Popen([hooked, *args, "--root", root], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=dict(os.environ, **env))
        fifo.paused(what)
        return p

    def resumed(what, p, pages):
        fifo.go()
        out = p.communicate(timeout=LIMIT)[0]
        ok(what, (p.returncode, out), pages)

    write(root + "/etc/hpfilld.conf", "[Pool]\nPageSize=2M\nAmount=node0=10\n")
    ok("--once", cmd("--once"), 10)

    # (finding 2) --once --shrink: its configuration read, held before the host lock while claim
    # vmx adds 20; with the lock it reads the claims as they are then, and shrinks none of them
    p = hooked_paused("--once --shrink, before the host lock", ["--once", "--shrink"],
                      HPFILLD_TEST_PLANNED_FIFO=fifo.path)
    ok("claim vmx while an --once --shrink waits", cmd("claim", "vmx", "--pool", "2M:20"), 30)
    resumed("--once --shrink that waited while claim vmx added 20", p, 30)
    if shares(root) != {"config": (10, 10), "claim:vmx": (20, 20)}:
        fail("after --once --shrink beside claim vmx: state:\n%s" % state(root))

    # ... and an --once held there while unclaim vmx gives its 20 back adds none of them again
    p = hooked_paused("--once, before the host lock", ["--once"], HPFILLD_TEST_PLANNED_FIFO=fifo.path)
    ok("unclaim vmx while an --once waits", cmd("unclaim", "vmx"), 10,
       "unclaim vmx: 2M pool of node0: 20 pages given back (30 -> 10)")
    resumed("--once that waited while unclaim vmx gave 20 back", p, 10)

    # (finding 1) unclaim killed where the claim is given back in the state, before its pages
    # left; the admin adds 5 meanwhile. The next command (another unclaim of it, an --once, a
    # claim of another that grows the pool) gives the claim's 20 back, not the admin's; an unclaim
    # after that gives back nothing more
    for nxt, more in ((("unclaim", "vmx"), 0), (("--once",), 0), (("claim", "vmq", "--pool", "2M:2"), 2)):
        base = nr(root)
        ok("claim vmx", cmd("claim", "vmx", "--pool", "2M:20"), base + 20)
        p = hooked_paused("unclaim vmx, given back in the state", ["unclaim", "vmx"],
                          HPFILLD_TEST_UNCLAIMED_FIFO=fifo.path)
        p.kill()
        p.communicate(timeout=LIMIT)
        if p.returncode != KILLED or nr(root) != base + 20 or "owner claim:vmx" not in state(root):
            fail("unclaim vmx killed at its rendezvous: exit %d, %d pages, state:\n%s" % (p.returncode, nr(root),
                                                                                         state(root)))
        set_nr(root, base + 25)
        what = " ".join(nxt) + " after unclaim vmx was killed"
        ok(what, cmd(*nxt), base + 5 + more)
        if "claim:vmx" in shares(root):
            fail("%s: the claim still holds pages, state:\n%s" % (what, state(root)))
        rc, out = cmd("unclaim", "vmx")
        if rc != 0 or nr(root) != base + 5 + more or ("no such claim" not in out and "0 pages given back" not in out):
            fail("unclaim vmx once more after %s: exit %d, %d pages, expected %d: %s" % (what, rc, nr(root),
                                                                                       base + 5 + more, out))
        if more:
            ok("unclaim vmq", cmd("unclaim", "vmq"), base + 5)
    if shares(root) != {"config": (10, 10)} or nr(root) != 25:
        fail("the admin's 15 beside the configuration's 10 expected: %d pages, state:\n%s" % (nr(root), state(root)))

    # (finding 1) claim c2 killed before, and after, each of its steps: unclaim c2 gives back what
    # it added (all 100 where its kernel write was done), not the configuration's 10 nor the
    # admin's 15.
    # hpfilld adds them in one write; hpfilld-hooked (HPFILLD_TEST_STEP_PAGES) in writes of 30,
    # and is killed between them too
    def stepped(*args, **env):
        return hpfilld(hooked, root, *args, HPFILLD_TEST_STEP_PAGES="30", **env)

    for c in (cmd, stepped):
        killed_in(root, work, c, ["claim", "c2", "--pool", "2M:100"], ["unclaim", "c2"], 25, 125)
    # an --once --pool 50 likewise (35 over the admin's 15: the pages no claim holds), then
    # give-back: the one-off's 35 given back, not the admin's 15, nor claim keep's 7
    ok("claim keep", cmd("claim", "keep", "--pool", "2M:7"), 32)
    ok("give-back", cmd("give-back"), 22, "2M pool of node0: 10 pages given back (32 -> 22)")
    for c in (cmd, stepped):
        killed_in(root, work, c, ["--once", "--pool", "2M:50"], ["give-back"], 22, 57)


def killed_in(root, work, cmd, argv, undo, base, full):
    """@argv run by @cmd, killed (SIGKILL, the fake kernel's) before and after each of its steps,
    from a pool of @base pages, then @undo: @base pages again. At least one kill leaves @full
    pages, the command's last kernel write done, its change not yet settled (an intent in the
    state)."""
    steps = work + "/steps"
    seen_full = False
    for after in ("0", "1"):
        for n in range(1, 100):
            rc, out = cmd(*argv, HPFILLD_FAKE_KILL_STEP=str(n), HPFILLD_FAKE_KILL_AFTER=after,
                          HPFILLD_FAKE_STEPS=steps)
            with open(steps) as f:
                done = int(f.read())
            what = "%s killed %s its step %d" % (" ".join(argv), "after" if after == "1" else "before", n)
            if rc != KILLED:
                if done >= n or rc != 0 or nr(root) != full:
                    fail("%s: exit %d after %d steps, %d pages: %s" % (what, rc, done, nr(root), out))
            seen_full |= rc == KILLED and nr(root) == full and "\nintent " in state(root)
            rc, out = cmd(*undo)
            if rc != 0 or nr(root) != base:
                fail("%s, then %s: exit %d, %d pages, expected %d: %s\nstate:\n%s" % (
                    what, " ".join(undo), rc, nr(root), base, out, state(root)))
            if done < n:
                break
        else:
            fail("%s: killed at each of 99 steps" % " ".join(argv))
    if not seen_full:
        fail("%s: no kill after its kernel write with its change unsettled: nothing tested" % " ".join(argv))


if __name__ == "__main__":
    run(test, os.environ["HPFILLD"], "hpfilld-state-races-")
