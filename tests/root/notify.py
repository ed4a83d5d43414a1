#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The daemon under a real NOTIFY_SOCKET: STATUS before READY, READY only with the pools at
target, RELOADING then READY on SIGHUP, STOPPING on SIGTERM and exit 0; capabilities dropped
(all but those reservations need).
Waits on the daemon's own messages (with a time limit against hangs), never on the clock."""
import grp
import mmap
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

HP = "/sys/kernel/mm/hugepages/hugepages-2048kB"
NODE = "/sys/devices/system/node/node%s/hugepages/hugepages-2048kB/nr_hugepages"
LIMIT = 60  # seconds: a hang fails the test instead of blocking CI


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def checkpoint(name):
    """Where tests/root/stopped.sh stops the test half way (ROOT_TEST_STOP=NAME:HOW, as
    tests/root/lib.sh's checkpoint does): a signal to the process group, or a failure."""
    where, _, how = os.environ.get("ROOT_TEST_STOP", "").partition(":")
    if where != name:
        return
    if how == "fail":
        fail("stopped at checkpoint %s (ROOT_TEST_STOP)" % name)
    os.killpg(0, getattr(signal, "SIG" + how))


def nr(node):
    with open(NODE % node) as f:
        return int(f.read())


def fills_total(hpfilld):
    """The fills recorded since boot, as hpfilld status --format=prometheus says."""
    out = subprocess.run([hpfilld, "status", "--format=prometheus"], capture_output=True, text=True,
                         timeout=LIMIT, check=True).stdout
    return int(next(l.split()[1] for l in out.split("\n") if l.startswith("hpfilld_fills_total ")))


def make_until(sock, messages):
    """until(word): the notifications on @sock until one containing @word (or a line starting
    with it, for "KEY="); all of them are kept in @messages, in order."""
    def until(word):
        while True:
            try:
                m = sock.recv(4096).decode()
            except socket.timeout:
                fail("no %s within %d s; got %r" % (word, LIMIT, messages))
            messages.append(m)
            if word in m.split("\n"):
                return m
            if word.endswith("=") and any(l.startswith(word) for l in m.split("\n")):
                return m
    return until


def main():
    hpfilld, node = sys.argv[1], sys.argv[2]
    # the pages others hold on the node: the targets are on top of them
    before_daemons = nr(node)
    t40, t60 = before_daemons + 40, before_daemons + 60
    work = tempfile.mkdtemp(prefix="hpfilld-notify-")
    path = os.path.join(work, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(LIMIT)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    messages = []
    until = make_until(sock, messages)

    with open(os.path.join(work, "a.conf"), "w") as f:
        f.write("[Pool]\nPageSize=2M\nAmount=node%s=%d\n" % (node, t40))
    d = subprocess.Popen([hpfilld, "--config", os.path.join(work, "a.conf")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        until("READY=1")
        if nr(node) != t40:
            fail("READY=1 with node%s at %d pages, not %d" % (node, nr(node), t40))
        first_ready = next(i for i, m in enumerate(messages) if "READY=1" in m.split("\n"))
        if not any(l.startswith("STATUS=") for m in messages[:first_ready] for l in m.split("\n")):
            fail("no STATUS= before READY=1: %r" % messages)
        line40 = "2M pool: %d/%d pages" % (t40, t40)
        if line40 not in messages[first_ready] and \
                not any(line40 in m for m in messages[first_ready:first_ready + 2]):
            # the final STATUS comes with or just before READY
            if not any(line40 in m for m in messages):
                fail("no final STATUS with the report: %r" % messages)

        with open("/proc/%d/status" % d.pid) as f:
            caps = [l for l in f if l.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs"))]
        for l in caps:
            k, v = l.split(":")
            v = v.strip()
            if k == "NoNewPrivs" and v != "1":
                fail("NoNewPrivs is %s" % v)
            # what reservations need, for any a reload may bring: CAP_CHOWN, CAP_DAC_READ_SEARCH,
            # CAP_LEASE, permitted, effective only while reservations are made
            want = 0 if k in ("CapAmb", "CapEff") else (1 << 0) | (1 << 2) | (1 << 28)
            if k != "NoNewPrivs" and int(v, 16) != want:
                fail("%s is %s, expected %x" % (k, v, want))

        # reload with a bigger pool: RELOADING=1, then READY=1 with the new target met
        with open(os.path.join(work, "a.conf"), "w") as f:
            f.write("[Pool]\nPageSize=2M\nAmount=node%s=%d\n" % (node, t60))
        n = len(messages)
        d.send_signal(signal.SIGHUP)
        until("RELOADING=1")
        if not any(l.startswith("MONOTONIC_USEC=") for l in messages[-1].split("\n")):
            fail("RELOADING=1 without MONOTONIC_USEC=: %r" % messages[-1])
        until("READY=1")
        if nr(node) != t60:
            fail("READY=1 after reload with node%s at %d pages, not %d" % (node, nr(node), t60))

        # a bad configuration on reload: the old one stays, the daemon stays up
        fills = fills_total(hpfilld)
        with open(os.path.join(work, "a.conf"), "w") as f:
            f.write("[Pool]\nPageSize=2M\nAmount=bogus\n")
        d.send_signal(signal.SIGHUP)
        until("RELOADING=1")
        n = len(messages)
        ready = until("READY=1")
        if d.poll() is not None:
            fail("a bad reload stopped the daemon")
        # the plan in use stays: no fill (the configuration is read under the host lock, after
        # "Filling the pools": no progress, no fill recorded), and the unit's status names the error
        if not any(l.startswith("STATUS=Reload failed") and "Amount=bogus" in l for l in ready.split("\n")):
            fail("READY=1 after a bad reload without a STATUS= naming the error: %r" % ready)
        if any(l.startswith("STATUS=Filling:") for m in messages[n - 1:] for l in m.split("\n")):
            fail("a bad reload filled again: %r" % messages[n - 1:])
        if fills_total(hpfilld) != fills:
            fail("a bad reload recorded a fill: %d fills, %d before" % (fills_total(hpfilld), fills))
        if nr(node) != t60:
            fail("a bad reload changed the pool: %d" % nr(node))

        d.send_signal(signal.SIGTERM)
        until("STOPPING=1")
        rc = d.wait(timeout=LIMIT)
        if rc != 0:
            fail("exit status %d after SIGTERM; stderr: %s" % (rc, d.stderr.read()))
        err = d.stderr.read()
        if line40 not in err or "Reload failed" not in err:
            fail("the log lacks the one-line report or the reload failure: %s" % err)
        if nr(node) != t60:
            fail("the pool changed on stop without ReleaseOnStop: %d" % nr(node))

        # ReleaseOnStop=yes: SIGTERM gives back the configuration's pages (the daemon before's
        # too: one owner whatever --config, kept in /run/hpfilld/state), down to what the pool
        # held before them
        found = nr(node)
        with open(os.path.join(work, "a.conf"), "w") as f:
            f.write("[Fill]\nReleaseOnStop=yes\n[Pool]\nPageSize=2M\nAmount=node%s=%d\n" % (node, found + 30))
        messages.clear()
        d = subprocess.Popen([hpfilld, "--config", os.path.join(work, "a.conf")], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        until("READY=1")
        if nr(node) != found + 30:
            fail("ReleaseOnStop: READY=1 at %d pages" % nr(node))
        d.send_signal(signal.SIGTERM)
        until("STOPPING=1")
        if d.wait(timeout=LIMIT) != 0 or nr(node) != before_daemons:
            fail("ReleaseOnStop: exit %s, node%s at %d pages, expected %d" % (d.returncode, node, nr(node),
                                                                            before_daemons))

        # a reservation made at start is left alone when the daemon fills again (a VM may map it)
        if len(sys.argv) > 3:
            mnt = sys.argv[3]
            with open(os.path.join(work, "a.conf"), "w") as f:
                f.write("[Pool]\nPageSize=2M\nAmount=node%s=%d\n[Reserve]\nName=keep\nPageSize=2M\nAmount=4\nNode=%s\n"
                        % (node, found + 10, node))
            messages.clear()
            d = subprocess.Popen([hpfilld, "--config", os.path.join(work, "a.conf")], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            until("READY=1")
            keep = os.path.join(mnt, "hpfilld", "keep")
            inode = os.stat(keep).st_ino
            checkpoint("reserved")

            def write_marker(marker):
                """Maps the reservation as a VM would and writes @marker at its start."""
                f = open(keep, "r+b")
                m = mmap.mmap(f.fileno(), 0)
                m[0:4] = marker
                return f, m

            def first_bytes():
                with open(keep, "rb") as f:
                    return mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)[0:4]

            # a VM wrote to it and went: a reload hands it out again zeroed, in the same file
            f, m = write_marker(b"used")
            m.close()
            f.close()
            d.send_signal(signal.SIGHUP)
            until("RELOADING=1")
            until("READY=1")
            if os.stat(keep).st_ino != inode:
                fail("a reload made the reservation anew")
            if first_bytes() != bytes(4):
                fail("a reload handed the reservation out again with what its last user wrote")
            # a VM maps it: a reload leaves its pages alone, and applies a new owner, group and mode
            f, m = write_marker(b"vm!!")
            with open(os.path.join(work, "a.conf"), "a") as c:
                c.write("Owner=nobody\nGroup=nogroup\nMode=0640\n")
            d.send_signal(signal.SIGHUP)
            until("RELOADING=1")
            until("READY=1")
            st = os.stat(keep)
            if m[0:4] != b"vm!!" or st.st_ino != inode:
                fail("a reload took the pages of a reservation a VM maps")
            if (st.st_mode & 0o777, st.st_uid) != (0o640, pwd.getpwnam("nobody").pw_uid):
                fail("a reload did not apply Owner= and Mode=: %o %d" % (st.st_mode & 0o777, st.st_uid))
            if st.st_gid != grp.getgrnam("nogroup").gr_gid:
                fail("a reload did not apply Group=: %d" % st.st_gid)
            m.close()
            f.close()
            d.send_signal(signal.SIGTERM)
            until("STOPPING=1")
            if d.wait(timeout=LIMIT) != 0:
                fail("reservation scenario: exit %d" % d.returncode)
            if "keep reservation: 4/4 2M pages" not in d.stderr.read():
                fail("no reservation line in the log")
            os.unlink(keep)  # its pages go back to the pool

        # (the rendezvous is a test hook: hpfilld-hooked, tests/hooks/hooks.h)
        hooked = os.environ.get("HPFILLD_HOOKED")
        if not hooked:
            print("skip: the progress reports of a paused fill (no HPFILLD_HOOKED, the binary with the test hooks)")
        else:
            # EXTEND_TIMEOUT_USEC= while pages keep coming, none once they stop: the fill pauses at a
            # rendezvous after its first step (a test hook), the progress reports go on
            fifo = os.path.join(work, "pause")
            os.mkfifo(fifo)
            base = nr(node)
            with open(os.path.join(work, "a.conf"), "w") as f:
                f.write("[Fill]\nMode=sysfs\n[Pool]\nPageSize=2M\nAmount=node%s=%d\n" % (node, base + 20))
            messages.clear()
            d = subprocess.Popen([hooked, "--config", os.path.join(work, "a.conf")],
                                 env=dict(env, HPFILLD_TEST_STEP_PAGES="10", HPFILLD_TEST_PAUSE_FIFO=fifo,
                                          HPFILLD_TEST_PAUSE_AFTER_STEPS="1"),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            with open(fifo) as f:
                if f.read().strip() != "paused":
                    fail("no rendezvous")
            m = until("EXTEND_TIMEOUT_USEC=")  # the report after the first step's pages
            if "STATUS=Filling: 2M 10/20 pages" not in m:
                fail("progress report: %r" % m)
            m = until("STATUS=Filling: 2M 10/20 pages")  # the next one: no progress, no extension
            if any(l.startswith("EXTEND_TIMEOUT_USEC=") for l in m.split("\n")):
                fail("extended without progress: %r" % m)
            if any("READY=1" in x.split("\n") for x in messages):
                fail("READY=1 before the pools were full")
            with open(fifo, "w") as f:
                f.write("go\n")
            until("READY=1")
            if nr(node) != base + 20:
                fail("after the pause: %d pages" % nr(node))
            d.send_signal(signal.SIGTERM)
            until("STOPPING=1")
            if d.wait(timeout=LIMIT) != 0:
                fail("extension scenario: exit %d" % d.returncode)

        # WatchdogSec=: WATCHDOG=1 while idle, at half the interval systemd asked for
        with open(os.path.join(work, "a.conf"), "w") as f:
            f.write("[Pool]\nPageSize=2M\nAmount=node%s=%d\n" % (node, found))
        messages.clear()
        d = subprocess.Popen([hpfilld, "--config", os.path.join(work, "a.conf")],
                             env=dict(env, WATCHDOG_USEC="200000"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        until("READY=1")
        until("WATCHDOG=1")
        until("WATCHDOG=1")
        d.send_signal(signal.SIGTERM)
        until("STOPPING=1")
        if d.wait(timeout=LIMIT) != 0:
            fail("watchdog scenario: exit %d" % d.returncode)
        # the watchdog meant for another process (WATCHDOG_PID) is not ours to feed
        messages.clear()
        d = subprocess.Popen([hpfilld, "--config", os.path.join(work, "a.conf")],
                             env=dict(env, WATCHDOG_USEC="200000", WATCHDOG_PID="1"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        until("READY=1")
        d.send_signal(signal.SIGTERM)
        until("STOPPING=1")
        d.wait(timeout=LIMIT)
        if any("WATCHDOG=1" in m.split("\n") for m in messages):
            fail("WATCHDOG=1 sent for another process's watchdog")

        # a bad configuration at start: no READY=1, a STATUS and ERRNO saying so, exit 2
        with open(os.path.join(work, "a.conf"), "w") as f:
            f.write("[Pool]\nPageSize=2M\nAmount=node%s=0\n" % node)
        messages.clear()
        d = subprocess.Popen([hpfilld, "--config", os.path.join(work, "a.conf")], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rc = d.wait(timeout=LIMIT)
        # it sent all it had to say before it exited: what is queued is all of it
        sock.setblocking(False)
        while True:
            try:
                messages.append(sock.recv(4096).decode())
            except BlockingIOError:
                break
        if rc != 2 or any("READY=1" in m.split("\n") for m in messages):
            fail("bad configuration at start: exit %d, messages %r" % (rc, messages))
        if not any(l.startswith("ERRNO=") for m in messages for l in m.split("\n")) or \
                not any(l.startswith("STATUS=") and not l.startswith("STATUS=Filling")
                        for m in messages for l in m.split("\n")):
            fail("bad configuration at start: no STATUS= saying so and ERRNO=: %r" % messages)
    finally:
        if d.poll() is None:
            d.kill()
        sock.close()
        shutil.rmtree(work)
    print("PASS")


if __name__ == "__main__":
    main()
