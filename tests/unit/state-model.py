#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The model-based test of whose pages are whose: seeded sequences of operations on a fake
machine under --root (two nodes, 2M pools kept by the fake kernel as the kernel keeps them: a
tree with fake-pools) run the real hpfilld and check, after every step, what it promises:

  - the pool is never below what others had (pages nobody added through hpfilld),
  - no page in use is given back (hpfilld never turns a page in use into a surplus one),
  - the owners in the state add up to what the pool holds beyond others' pages,
  - nothing is left announced or raised once a command has ended,
  - after unclaiming every claim and `hpfilld give-back`, the pool is exactly what others had.

The operations: claim and unclaim with any names (lock, claim.lock, ...), --once with and
without --shrink from the command line and from the configuration, give-back, the daemon
started (ReleaseOnStop= on and off, --config), reloaded and stopped or killed, the administrator
raising and lowering a pool, a workload mapping pages and letting them go; any hpfilld command
killed (SIGKILL) at its Nth step, before or just after it (a pool write or the state's save: the
fake kernel's HPFILLD_FAKE_KILL_STEP), and two commands interleaved at the host lock (the first
paused where it has read its configuration, before the lock: hpfilld-hooked's
HPFILLD_TEST_PLANNED_FIFO, while the second runs whole).

A failure prints the seed and the steps; `state-model.py --seed S` replays it. The default run
is STATE_MODEL_SEQUENCES sequences (1000) of STATE_MODEL_STEPS steps (8); more behind
--sequences N. Waits on the commands' exits and the daemon's own messages, never on the clock."""
import argparse
import multiprocessing
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HPFILLD = os.environ.get("HPFILLD")
HOOKED = os.environ.get("HPFILLD_HOOKED")
NODES = 2
KB = 2048
# --kernel: the real kernel's 2M pools (the root suite: tests/root/state-model.sh runs this in a
# mount namespace of its own, with a run/hpfilld and configuration files of its own)
KERNEL = False
FAKE_KERNEL = os.environ.get("FAKE_KERNEL")
LIMIT = 30
NAMES = ["vm1", "vm2", "lock", "claim.lock", "libvirt-0123", "a", "state"]


class Failure(Exception):
    pass


def node_dir(root, n):
    return "%s/sys/devices/system/node/node%d/hugepages/hugepages-%dkB" % (root, n, KB)


def global_dir(root):
    return "%s/sys/kernel/mm/hugepages/hugepages-%dkB" % (root, KB)


def read_int(path):
    with open(path) as f:
        return int(f.read().strip() or 0)


def put(path, value):
    # in place, not truncated: the fake kernel takes a write of a pool attribute whole
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, b"%d\n" % value)
    finally:
        os.close(fd)


def put_counter(path, value):
    """A counter as the kernel keeps it, set by the test: pwrite(), which the fake kernel leaves
    alone (it takes write()s of pool attributes as the kernel's)"""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        text = b"%d\n" % value
        os.pwrite(fd, text, 0)
        os.ftruncate(fd, len(text))
    finally:
        os.close(fd)


def make_tree(root):
    nodes = root + "/sys/devices/system/node"
    for n in range(NODES):
        d = node_dir(root, n)
        os.makedirs(d)
        for f in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
            put_counter(d + "/" + f, 0)
        with open("%s/node%d/cpulist" % (nodes, n), "w") as f:
            f.write("%d-%d\n" % (2 * n, 2 * n + 1))
        with open("%s/node%d/meminfo" % (nodes, n), "w") as f:
            f.write("Node %d MemTotal:       4194304 kB\nNode %d MemFree:        4096000 kB\n" % (n, n))
        with open("%s/node%d/distance" % (nodes, n), "w") as f:
            f.write(" ".join("10" if i == n else "20" for i in range(NODES)) + "\n")
        open("%s/node%d/compact" % (nodes, n), "w").close()
    for f in ("online", "has_memory"):
        with open(nodes + "/" + f, "w") as fh:
            fh.write("0-%d\n" % (NODES - 1))
    with open(nodes + "/has_cpu", "w") as f:
        f.write("0-%d\n" % (2 * NODES - 1))
    os.makedirs(root + "/sys/devices/system/cpu")
    with open(root + "/sys/devices/system/cpu/online", "w") as f:
        f.write("0-%d\n" % (2 * NODES - 1))
    g = global_dir(root)
    os.makedirs(g)
    for f in ("nr_hugepages", "nr_hugepages_mempolicy", "free_hugepages", "resv_hugepages", "surplus_hugepages",
              "nr_overcommit_hugepages"):
        put_counter(g + "/" + f, 0)
    os.makedirs(root + "/proc/self")
    os.makedirs(root + "/proc/sys/vm")
    with open(root + "/proc/meminfo", "w") as f:
        f.write("MemTotal:       8388608 kB\nMemFree:        8192000 kB\n")
    with open(root + "/proc/sys/vm/min_free_kbytes", "w") as f:
        f.write("67584\n")
    for f in ("compact_memory", "drop_caches"):
        open(root + "/proc/sys/vm/" + f, "w").close()
    open(root + "/proc/cmdline", "w").close()
    with open(root + "/proc/self/mounts", "w") as f:
        f.write("proc /proc proc rw 0 0\n")
    os.makedirs(root + "/etc")
    open(root + "/fake-pools", "w").close()


def parse_state(root):
    """{(node): {owner: held}}, intents, settings, owners {name: gone}"""
    path = root + "/run/hpfilld/state"
    held, owners, intents, settings = {n: {} for n in range(NODES)}, {}, 0, 0
    if not os.path.exists(path):
        return held, owners, intents, settings
    with open(path) as f:
        lines = f.read().split("\n")
    if lines[-1] != "" or lines[-2] != "end":
        raise Failure("the state is cut short: %r" % lines[-3:])
    for line in lines:
        w = line.split(" ")
        if w[0] == "owner":
            owners[w[1]] = w[3] == "gone"
        elif w[0] == "pool" and int(w[1]) == KB * 1024:
            held[int(w[2])]["pool"] = 0  # a pool the state keeps (below: its owners)
            for share in w[4:]:
                name, counts = share.split("=")
                held[int(w[2])][name] = int(counts.split("/")[0])
        elif w[0] == "intent":
            intents += 1
        elif w[0] == "setting":
            settings += 1
    return held, owners, intents, settings


class World:
    def __init__(self, base, rng, log):
        self.root = "/" if KERNEL else base + "/m"
        self.conf = base + "/hpfilld.conf" if KERNEL else self.root + "/etc/hpfilld.conf"
        if not KERNEL:
            make_tree(self.root)
        self.rng = rng
        self.log = log
        self.others = [0] * NODES  # pages nobody added through hpfilld
        self.seen = [0] * NODES  # persistent pages as the last hpfilld command left them
        self.mapped = [0] * NODES  # pages the workload holds
        self.claims = set()
        self.daemon = None
        self.notify = None
        self.env = dict(os.environ)
        self.env.pop("NOTIFY_SOCKET", None)
        self.config(0, False)

    # the machine
    def counts(self, n):
        d = node_dir(self.root, n)
        return read_int(d + "/nr_hugepages"), read_int(d + "/free_hugepages"), read_int(d + "/surplus_hugepages")

    def persistent(self, n):
        nr, _, surplus = self.counts(n)
        return nr - surplus

    def config(self, pages, release):
        self.release = release
        with open(self.conf, "w") as f:
            # on the real kernel auto too (a fault fill raises nr_overcommit_hugepages)
            mode = "auto" if KERNEL and self.rng.random() < 0.5 else "sysfs"
            f.write("[Fill]\nMode=%s\nReleaseOnStop=%s\n" % (mode, "yes" if release else "no"))
            if pages:
                f.write("[Pool]\nPageSize=2M\nAmount=%d\n" % pages)

    def set_counters(self, n, nr, free, surplus):
        d, g = node_dir(self.root, n), global_dir(self.root)
        old = self.counts(n)
        put_counter(d + "/free_hugepages", free)
        put_counter(d + "/surplus_hugepages", surplus)
        put_counter(d + "/nr_hugepages", nr)
        for f, i in (("nr_hugepages", 0), ("free_hugepages", 1), ("surplus_hugepages", 2)):
            v = read_int(g + "/" + f)
            put_counter(g + "/" + f, v + (nr, free, surplus)[i] - old[i])

    # hpfilld
    def run(self, args, kill=None, hooked=None, wait=True):
        env = dict(self.env)
        binary = HPFILLD
        if KERNEL and kill:
            # the steps of the real kernel's writes and of the state's saves, counted and killed at
            env["LD_PRELOAD"] = FAKE_KERNEL
        if KERNEL and (args[0] == "--once" and "--pool" not in args):
            args = args + ["--config", self.conf]
        if kill:
            env["HPFILLD_FAKE_KILL_STEP"] = str(kill[0])
            env["HPFILLD_FAKE_KILL_AFTER"] = "1" if kill[1] else "0"
        if hooked:
            env["HPFILLD_TEST_PLANNED_FIFO"] = hooked
            binary = HOOKED
        p = subprocess.Popen([binary] + args + ["--root", self.root], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=env)
        if not wait:
            return p
        return self.finish(p, args)

    def finish(self, p, args):
        out = p.communicate(timeout=LIMIT)[0].decode(errors="replace")
        if p.returncode < 0 and p.returncode != -signal.SIGKILL:
            raise Failure("hpfilld %s: killed by signal %d:\n%s" % (" ".join(args), -p.returncode, out))
        return p.returncode, out

    def state_text(self):
        try:
            with open(self.root + "/run/hpfilld/state") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def pending(self):
        """What others did since the last hpfilld command, as the next one that opens the state
        sees it: pages that left are taken from hpfilld's owners first (never more than they
        hold), then from others'; pages that came are others'. The change to others' pages, per
        node."""
        held, _, _, _ = parse_state(self.root)
        delta = []
        for n in range(NODES):
            p = self.persistent(n)
            if p < self.seen[n]:
                delta.append(-max(0, self.seen[n] - p - sum(held[n].values())))
            else:
                delta.append(p - self.seen[n])
        return delta

    def seen_by(self, delta):
        """A command opened the state (it changed): it saw what others did; whatever it moved
        itself is not others'"""
        for n in range(NODES):
            self.others[n] += delta[n]
        self.seen = [self.persistent(n) for n in range(NODES)]

    def untracked(self):
        """A pool the state keeps nothing of (hpfilld never added pages there): all its pages
        are others', whenever they came"""
        held, _, _, _ = parse_state(self.root)
        for n in range(NODES):
            if "pool" not in held[n]:
                self.others[n] = self.seen[n] = self.persistent(n)

    # the invariants, at rest
    def check(self, before, what):
        held, owners, intents, settings = parse_state(self.root)
        for n in range(NODES):
            # the pool as hpfilld last saw it: what others did since, it has not counted yet
            p = self.seen[n]
            nr, free, surplus = self.counts(n)
            if p < self.others[n]:
                raise Failure("%s: node%d holds %d persistent pages, below the %d others had" % (what, n, p, self.others[n]))
            if surplus > before[n][2]:
                raise Failure("%s: node%d: pages in use given back (surplus %d -> %d)" % (what, n, before[n][2], surplus))
            if sum(held[n].values()) + self.others[n] != p:
                raise Failure("%s: node%d: the owners hold %s, others %d, the pool %d when last seen (%d now)" %
                              (what, n, held[n], self.others[n], p, self.persistent(n)))
        if intents or settings:
            raise Failure("%s: %d intents and %d settings left once done" % (what, intents, settings))
        rundir = self.root + "/run/hpfilld"
        left = [f for f in os.listdir(rundir) if f.startswith(".")] if os.path.isdir(rundir) else []
        if left:
            raise Failure("%s: files left in run/hpfilld: %s" % (what, left))
        if read_int(global_dir(self.root) + "/nr_overcommit_hugepages") != 0:
            raise Failure("%s: nr_overcommit_hugepages left raised" % what)
        for c in self.claims:
            if owners.get("claim:" + c) is not False:
                raise Failure("%s: claim %s is not in the state: %s" % (what, c, owners))

    # the daemon
    def daemon_start(self, args):
        sock = self.root + "/../notify"
        if os.path.exists(sock):
            os.unlink(sock)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(sock)
        self.notify.settimeout(LIMIT)
        env = dict(self.env, NOTIFY_SOCKET=sock)
        # its log to a file: a pipe nobody reads while it runs would stop it once full
        self.daemon_log = open(self.root + "/../daemon.log", "w+")
        self.daemon = subprocess.Popen([HPFILLD] + args + ["--root", self.root], stdout=subprocess.DEVNULL,
                                       stderr=self.daemon_log, env=env)
        # READY=1, or the daemon's end (a first fill that failed)
        pidfd = os.pidfd_open(self.daemon.pid)
        try:
            while True:
                ready, _, _ = select.select([self.notify, pidfd], [], [], LIMIT)
                if not ready:
                    raise Failure("the daemon said neither READY=1 nor ended")
                if self.notify not in ready:
                    self.notify.close()
                    self.daemon_end()
                    return False
                msg = self.notify.recv(4096).decode()
                if "READY=1" in msg.split("\n"):
                    # nobody reads its messages from here on: a full queue would hold the daemon up
                    self.notify.close()
                    os.unlink(sock)
                    return True
        finally:
            os.close(pidfd)

    def daemon_end(self, sig=None):
        if sig:
            self.daemon.send_signal(sig)
        self.daemon.wait(timeout=LIMIT)
        self.daemon_log.seek(0)
        err = self.daemon_log.read()
        self.daemon_log.close()
        rc = self.daemon.returncode
        self.daemon = None
        if rc < 0 and rc != -signal.SIGKILL:
            raise Failure("the daemon was killed by signal %d:\n%s" % (-rc, err))
        return rc, err


def op_claim(w, kill):
    name, n = w.rng.choice(NAMES), w.rng.randint(1, 12)
    last = NODES - 1
    spec = w.rng.choice(["2M:%d" % n, "2M:node0=%d" % n, "2M:node%d=%d" % (last, n),
                         "2M:node0=%d,node%d=%d" % (n, last, n // 2 + 1) if last else "2M:node0=%d" % (n + 1)])
    w.log.append("claim %s --pool %s%s" % (name, spec, kill_said(kill)))
    rc, out = w.run(["claim", name, "--pool", spec], kill)
    if rc == -signal.SIGKILL:
        w.maybe_claims.add(name)
        return True
    if rc not in (0, 3):
        raise Failure("claim: exit %d: %s" % (rc, out))
    w.claims.add(name)
    return False


def op_unclaim(w, kill):
    name = w.rng.choice(sorted(w.claims | {"vm9"}))
    w.unclaimed = "claim:" + name
    w.log.append("unclaim %s%s" % (name, kill_said(kill)))
    rc, out = w.run(["unclaim", name], kill)
    if rc == -signal.SIGKILL:
        w.maybe_claims.add(name)
        return True
    if rc != 0:
        raise Failure("unclaim: exit %d: %s" % (rc, out))
    w.claims.discard(name)
    return False


def op_once(w, kill):
    args = ["--once"] + ([] if KERNEL and w.rng.random() < 0.5 else ["--mode", "sysfs"])
    if w.rng.random() < 0.5:
        args += ["--pool", w.rng.choice(["2M:%d" % w.rng.randint(0, 20), "2M:node%d=%d" % (NODES - 1, w.rng.randint(0, 10))])]
    else:
        pages = w.rng.randint(0, 20)
        w.config(pages, w.release)
        w.log.append("config [Pool] 2M:%d" % pages if pages else "config without [Pool]")
    if w.rng.random() < 0.4 or args[-1].endswith(":0") or args[-1].endswith("=0"):
        args.append("--shrink")
    w.log.append("hpfilld %s%s" % (" ".join(args), kill_said(kill)))
    rc, out = w.run(args, kill)
    if rc not in (0, 3, -signal.SIGKILL):
        raise Failure("--once: exit %d: %s" % (rc, out))
    return rc == -signal.SIGKILL


def op_give_back(w, kill):
    w.log.append("give-back%s" % kill_said(kill))
    rc, out = w.run(["give-back"], kill)
    want = (1,) if w.daemon else (0, 3)
    if rc not in want + (-signal.SIGKILL,):
        raise Failure("give-back: exit %d (expected %s): %s" % (rc, want, out))
    return rc == -signal.SIGKILL


def op_admin(w, kill):
    n = w.rng.randrange(NODES)
    before = w.persistent(n)
    if w.rng.random() < 0.5:
        k = w.rng.randint(1, 8)
        w.log.append("admin: node%d nr_hugepages = %d + %d" % (n, before, k))
        put(node_dir(w.root, n) + "/nr_hugepages", before + k)
    else:
        # never below the pages in use: in-use pages made surplus on one node would have the
        # fake tree take hpfilld's write of another (nr_hugepages_mempolicy, which binds to the
        # node on the real kernel only) as a global one; the root suite's surplus tests have
        # the kernel's own
        nr, free, _ = w.counts(n)
        low = min(before, nr - free)
        v = w.rng.randint(low, before) if before > low else before
        w.log.append("admin: node%d nr_hugepages = %d (from %d)" % (n, v, before))
        put(node_dir(w.root, n) + "/nr_hugepages", v)


def op_workload(w, kill):
    n = w.rng.randrange(NODES)
    nr, free, surplus = w.counts(n)
    if w.rng.random() < 0.5 and free > 0:
        k = w.rng.randint(1, free)
        w.log.append("workload maps %d pages of node%d" % (k, n))
        w.set_counters(n, nr, free - k, surplus)
        w.mapped[n] += k
    elif w.mapped[n] > 0:
        k = w.rng.randint(1, w.mapped[n])
        w.log.append("workload lets go of %d pages of node%d" % (k, n))
        gone = min(k, surplus)  # a surplus page freed goes back to the kernel
        w.set_counters(n, nr - gone, free + k - gone, surplus - gone)
        w.mapped[n] -= k


def op_daemon(w, kill):
    if w.daemon is None:
        args = ["--mode", "sysfs"]
        if KERNEL or w.rng.random() < 0.3:
            args += ["--config", w.conf]
        w.config(w.rng.randint(0, 20), w.rng.random() < 0.5)
        w.log.append("daemon %s (ReleaseOnStop=%s)" % (" ".join(args), w.release))
        w.daemon_start(args)
    elif w.rng.random() < 0.4:
        w.log.append("hpfilld reload")
        w.config(w.rng.randint(0, 20), w.release)
        rc, out = w.run(["reload"])
        if rc not in (0, 3):
            raise Failure("reload: exit %d: %s" % (rc, out))
    else:
        sig = signal.SIGKILL if w.rng.random() < 0.3 else signal.SIGTERM
        w.log.append("daemon stopped by %s" % sig.name)
        rc, err = w.daemon_end(sig)
        if sig == signal.SIGTERM and rc != 0:
            raise Failure("the daemon's stop: exit %d: %s" % (rc, err))


def op_interleave(w, kill):
    """B paused before the host lock (its configuration read) while A runs whole"""
    fifo = w.root + "/../planned"
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    name = w.rng.choice(NAMES)
    b = w.rng.choice([["--once", "--mode", "sysfs", "--shrink"], ["--once", "--mode", "sysfs"], ["unclaim", name],
                      ["claim", name, "--pool", "2M:%d" % w.rng.randint(1, 9)]])
    w.log.append("interleaved: hpfilld %s, paused before the lock, while:" % " ".join(b))
    pb = w.run(b, hooked=fifo, wait=False)
    paused, out = wait_paused(fifo, pb)
    # A: whole, while B waits (the daemon's give-back refusal aside, nothing here waits for B)
    w.rng.choice([op_claim, op_unclaim, op_once, op_give_back])(w, None)
    if paused:
        w.log.append("  then the paused one goes on")
        with open(fifo, "w") as f:
            f.write("go\n")
    else:
        w.log.append("  (it had ended before the lock)")
    rc, more = w.finish(pb, b)
    out += more
    if b[0] == "claim" and rc in (0, 3):
        w.claims.add(name)
    elif b[0] == "unclaim" and rc == 0:
        w.claims.discard(name)
    elif rc not in (0, 3):
        raise Failure("%s (interleaved): exit %d: %s" % (" ".join(b), rc, out))


def wait_paused(fifo, p):
    """Until @p writes to @fifo (paused at the rendezvous: True) or ends without (False); what it
    printed meanwhile"""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([fd, p.stdout], [], [], LIMIT)
            if not ready:
                raise Failure("the paused command neither paused nor ended")
            if fd in ready and os.read(fd, 64):
                return True, out.decode(errors="replace")
            if p.stdout in ready:
                chunk = os.read(p.stdout.fileno(), 4096)
                if not chunk:
                    return False, out.decode(errors="replace")
                out += chunk
    finally:
        os.close(fd)


def kill_said(kill):
    return "" if not kill else ", killed at step %d%s" % (kill[0], " (after it)" if kill[1] else "")


OPS = [(op_claim, 4), (op_unclaim, 3), (op_once, 3), (op_give_back, 2), (op_admin, 2), (op_workload, 2),
       (op_daemon, 1), (op_interleave, 1)]


def claims_held(w):
    """Pages each active claim holds, all nodes together"""
    held, owners, _, _ = parse_state(w.root)
    out = {}
    for n in range(NODES):
        for name, pages in held[n].items():
            if name.startswith("claim:") and owners.get(name) is False:
                out[name] = out.get(name, 0) + pages
    return out


def claims_by_node(w, active=True):
    """{node: {claim: pages held}} of the active claims (@active), or of every claim (a gone
    claim's pages, in use, are its own again if it is claimed again)"""
    held, owners, _, _ = parse_state(w.root)
    return {n: {c: h for c, h in held[n].items() if c.startswith("claim:") and (not active or owners.get(c) is False)}
            for n in range(NODES)}


def keep_free_for(w, before, claims_before):
    """The free pages each active claim surely has: those hpfilld added for it (they came free),
    less every page that went into use or left the pool's free ones since (any free page may
    have been the claim's), and less the pages the claim gave back (free ones: maybe those).
    No command that gives pages back takes them."""
    after = claims_by_node(w)
    for n in range(NODES):
        took = max(0, before[n][1] - w.counts(n)[1])
        sure = w.free_for[n]
        for c in list(sure):
            sure[c] = max(0, sure[c] - took)
        for c, h in after[n].items():
            # pages added came free; pages given back were free ones, maybe the surely free ones
            sure[c] = max(0, min(h, sure.get(c, 0) + h - claims_before[n].get(c, 0)))
        for c in list(sure):
            if c not in after[n]:
                del sure[c]
        _, free, _ = w.counts(n)
        if free < sum(sure.values()):
            raise Failure("node%d: %d free pages, the active claims' surely free ones %s given back" % (n, free, sure))


def settle_kill(w):
    """After a kill, at once (before the pools move otherwise): the next command settles what the
    killed one left; the claims it made or gave back are known again from the state"""
    w.log.append("give-back (settles)" if w.daemon is None else "reload (settles)")
    rc, out = w.run(["give-back"] if w.daemon is None else ["reload"])
    if rc not in (0, 3):
        raise Failure("the command after a kill: exit %d: %s" % (rc, out))
    _, owners, _, _ = parse_state(w.root)
    for c in list(w.maybe_claims):
        if owners.get("claim:" + c) is False:
            w.claims.add(c)
        elif "claim:" + c not in owners or owners["claim:" + c]:
            w.claims.discard(c)
    w.maybe_claims.clear()


def finish(w):
    """Every workload page let go, every claim given back, the daemon stopped, give-back: the
    pools are what others had"""
    for n in range(NODES):
        if w.mapped[n]:
            nr, free, surplus = w.counts(n)
            gone = min(w.mapped[n], surplus)
            w.set_counters(n, nr - gone, free + w.mapped[n] - gone, surplus - gone)
            w.mapped[n] = 0
    delta = w.pending()
    if w.daemon:
        w.daemon_end(signal.SIGTERM)
    for c in sorted(w.claims):
        rc, out = w.run(["unclaim", c])
        if rc != 0:
            raise Failure("unclaim %s at the end: exit %d: %s" % (c, rc, out))
    w.claims.clear()
    rc, out = w.run(["give-back"])
    if rc != 0:
        raise Failure("give-back at the end: exit %d: %s" % (rc, out))
    w.seen_by(delta)
    w.untracked()
    for n in range(NODES):
        if w.persistent(n) != w.others[n]:
            raise Failure("at the end node%d holds %d pages, others had %d" % (n, w.persistent(n), w.others[n]))
    held, owners, _, _ = parse_state(w.root)
    if any(held[n] for n in range(NODES)):
        raise Failure("at the end the state still counts %s" % held)


def one_sequence(seed, steps, base):
    rng = random.Random(seed)
    log = []
    w = World(base, rng, log)
    w.maybe_claims = set()
    w.free_for = {n: {} for n in range(NODES)}
    # some pages others had before anything
    for n in range(NODES if not KERNEL else 0):
        k = rng.randint(0, 6)
        if k:
            put(node_dir(w.root, n) + "/nr_hugepages", k)
            log.append("admin: node%d nr_hugepages = %d" % (n, k))
    if not KERNEL and rng.random() < 0.2:
        with open(node_dir(w.root, 1) + "/nr_hugepages.fake-max", "w") as f:
            f.write("%d\n" % rng.randint(4, 30))
        log.append("node1 grants at most %s pages" % open(node_dir(w.root, 1) + "/nr_hugepages.fake-max").read().strip())
    try:
        for i in range(steps):
            before = [w.counts(n) for n in range(NODES)]
            op = rng.choices([o for o, _ in OPS], [0 if KERNEL and o == op_workload else k for o, k in OPS])[0]
            kill = None
            if op in (op_claim, op_unclaim, op_once, op_give_back) and rng.random() < 0.3:
                kill = (rng.randint(1, 8), rng.random() < 0.5)
            hp = op not in (op_admin, op_workload)
            claims_node_before = claims_by_node(w, active=False)
            if hp:
                delta, text = w.pending(), w.state_text()
                claims_before = claims_held(w)
                moved = any(w.persistent(n) != w.seen[n] for n in range(NODES))
            killed = op(w, kill)
            # give-back keeps every claim's pages, and unclaim every other claim's (where nothing
            # unseen moves them meanwhile)
            if op in (op_give_back, op_unclaim) and not killed and not moved:
                after = claims_held(w)
                for c, held in claims_before.items():
                    if c != getattr(w, "unclaimed", None) and after.get(c, 0) < held:
                        raise Failure("step %d (%s): claim %s held %d pages, %d after" %
                                      (i + 1, log[-1], c, held, after.get(c, 0)))
            if killed:
                settle_kill(w)
            try:
                keep_free_for(w, before, claims_node_before)
            except Failure as e:
                raise Failure("step %d (%s): %s" % (i + 1, log[-1], e))
            # a command that opened the state saw what others did (a refusal before the lock, or
            # nothing to do, did not: the next one sees it)
            if hp and w.state_text() != text:
                w.seen_by(delta)
            w.untracked()
            # what the administrator and the workload do is seen by the next command
            if op not in (op_admin, op_workload):
                w.check(before, "step %d (%s)" % (i + 1, log[-1]))
        finish(w)
    except (Failure, subprocess.TimeoutExpired, OSError) as e:
        if w.daemon:
            w.daemon.kill()
            w.daemon.wait()
        return "seed %d: %s\nsteps:\n  %s" % (seed, e, "\n  ".join(log))
    return None


def worker(args):
    seeds, steps = args
    base_dir = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    if KERNEL:
        base_dir = None
    for seed in seeds:
        base = tempfile.mkdtemp(prefix="state-model.", dir=base_dir)
        try:
            err = one_sequence(seed, steps, base)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        if err:
            return err
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, help="replay this one sequence")
    ap.add_argument("--sequences", type=int, default=int(os.environ.get("STATE_MODEL_SEQUENCES", "1000")))
    ap.add_argument("--steps", type=int, default=int(os.environ.get("STATE_MODEL_STEPS", "8")))
    ap.add_argument("--first-seed", type=int, default=int(os.environ.get("STATE_MODEL_FIRST_SEED", "1")))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--kernel", action="store_true", help="the real kernel's pools (root, own mount namespace)")
    a = ap.parse_args()
    if not HPFILLD or not HOOKED:
        print("SKIP: HPFILLD and HPFILLD_HOOKED must name the binaries (meson test sets them)")
        return 77
    if a.kernel:
        global KERNEL, NODES
        KERNEL = True
        NODES = len([n for n in os.listdir("/sys/devices/system/node") if n.startswith("node") and
                     os.path.isdir("/sys/devices/system/node/%s/hugepages/hugepages-%dkB" % (n, KB))])
        a.jobs = 1  # one pool: one sequence at a time
        if not FAKE_KERNEL:
            print("SKIP: FAKE_KERNEL must name tests/fakekernel's library (its steps kill hpfilld)")
            return 77
    elif "fake-kernel" not in os.environ.get("LD_PRELOAD", ""):
        print("SKIP: not run under the fake kernel (LD_PRELOAD of tests/fakekernel, as meson test does)")
        return 77
    start = time.monotonic()
    seeds = [a.seed] if a.seed is not None else list(range(a.first_seed, a.first_seed + a.sequences))
    jobs = max(1, min(a.jobs, len(seeds)))
    chunks = [(seeds[i::jobs], a.steps) for i in range(jobs)]
    try:
        pool = multiprocessing.Pool(jobs) if jobs > 1 else None
    except OSError as e:
        # a build root without /dev/shm (a chroot's bare /dev) has no semaphores: one at a time
        print("note: no worker processes (%s); the sequences run one at a time" % e)
        pool = None
    results = pool.imap_unordered(worker, chunks) if pool else map(worker, [(seeds, a.steps)])
    try:
        for err in results:
            if err:
                print("FAIL: " + err)
                print("replay: %s --seed %s" % (sys.argv[0], err.split(":")[0].split()[1]))
                return 1
    finally:
        if pool:
            pool.terminate()
    print("PASS: %d sequences of %d steps in %.1f s" % (len(seeds), a.steps, time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
