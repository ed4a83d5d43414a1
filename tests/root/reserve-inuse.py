#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A reservation a process maps is never replaced or punched, whoever owns it and whatever its
mode, by any fill: --once, the daemon's first fill (a restart), a reload. The process runs as
the owner (nobody); the files are nobody's, 0640 (group root) and 0600 (group nogroup: closed to
root without CAP_DAC_READ_SEARCH). Kept: same inode, the mapping not "(deleted)", its marker
there, free pages the same, `status` says in-use. A reload adding a reservation with Owner= to a
daemon started without any hands it to its owner. Once the process is gone, a fill takes the
file back: same inode, zeroed, owner and mode as asked. Then a real QEMU (paused, -S) as nobody
with the 0600 reservation as its memory (share=on): --once keeps it. Waits on the daemon's own messages
(with a time limit against hangs), never on the clock."""
import atexit
import mmap
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile

HP = "/sys/kernel/mm/hugepages/hugepages-2048kB"
LIMIT = 60
RESERVE_CAPS = (1 << 0) | (1 << 2) | (1 << 28)  # CAP_CHOWN, CAP_DAC_READ_SEARCH, CAP_LEASE


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def free():
    with open(HP + "/free_hugepages") as f:
        return int(f.read())


def main():
    hpfilld, node, mnt, mapper = sys.argv[1:5]
    base = int(sys.argv[5])  # the pages others hold on the node: the pool is on top of them
    work = tempfile.mkdtemp(prefix="hpfilld-inuse-")
    # its configuration and sockets, gone with it however it ends (fail() exits)
    atexit.register(shutil.rmtree, work, True)
    conf = os.path.join(work, "r.conf")
    nobody = pwd.getpwnam("nobody").pw_uid
    files = [os.path.join(mnt, "hpfilld", n) for n in ("vm1", "vm2")]
    pool = "[Pool]\nPageSize=2M\nAmount=node%s=%d\n" % (node, base + 40)
    reserves = ("[Reserve]\nName=vm1\nPageSize=2M\nAmount=8\nNode=%s\nOwner=nobody\nMode=0640\n"
                "[Reserve]\nName=vm2\nPageSize=2M\nAmount=8\nNode=%s\nOwner=nobody\nGroup=nogroup\nMode=0600\n"
                % (node, node))
    vm3 = "[Reserve]\nName=vm3\nPageSize=2M\nAmount=4\nNode=%s\nOwner=nobody\nMode=0600\n" % node

    def write_conf(text):
        with open(conf, "w") as f:
            f.write(text)

    def once(want=0):
        p = subprocess.run([hpfilld, "--once", "--config", conf], capture_output=True, text=True)
        if p.returncode != want:
            fail("--once exited %d, expected %d:\n%s%s" % (p.returncode, want, p.stdout, p.stderr))
        return p.stdout

    write_conf(pool + reserves)
    once()
    for f in files:
        if os.stat(f).st_uid != nobody:
            fail("%s is not nobody's" % f)

    # the VM, as the owner
    vm = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable,
                           mapper] + files, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if vm.stdout.readline().strip() != "mapped":
        fail("the VM could not map its reservations")
    inodes = [os.stat(f).st_ino for f in files]
    free0 = free()

    def kept(how):
        if [os.stat(f).st_ino for f in files] != inodes:
            fail("%s replaced a reservation the VM maps" % how)
        with open("/proc/%d/maps" % vm.pid) as m:
            if "(deleted)" in m.read():
                fail("%s unlinked a reservation the VM maps" % how)
        if free() != free0:
            fail("%s: free pages %d, were %d (the VM's pages taken or doubled)" % (how, free(), free0))
        st = os.stat(files[1])
        if (st.st_uid, st.st_mode & 0o777) != (nobody, 0o600):
            fail("%s: vm2 is %d %o" % (how, st.st_uid, st.st_mode & 0o777))

    out = once()
    for f in files:
        if "kept as it was at %s (in use)" % f not in out:
            fail("--once did not say it kept %s in use:\n%s" % (f, out))
    kept("--once")
    st = subprocess.run([hpfilld, "status"], capture_output=True, text=True).stdout
    if sum(1 for l in st.splitlines() if " in-use " in l) != 2:
        fail("status does not show both reservations in use:\n" + st)

    # the daemon: started without reservations (its capabilities chosen then), reloaded with them
    path = os.path.join(work, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(LIMIT)

    def until(word):
        while True:
            try:
                m = sock.recv(4096).decode()
            except socket.timeout:
                fail("no %s within %d s" % (word, LIMIT))
            if word in m.split("\n"):
                return

    def daemon():
        d = subprocess.Popen([hpfilld, "--config", conf], env=dict(os.environ, NOTIFY_SOCKET=path),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        until("READY=1")
        return d

    def stop(d):
        d.terminate()
        if d.wait(timeout=LIMIT) != 0:
            fail("the daemon exited %d: %s" % (d.returncode, d.stderr.read()))
        return d.stderr.read()

    write_conf(pool)
    d = daemon()
    with open("/proc/%d/status" % d.pid) as f:
        caps = {l.split(":")[0]: int(l.split(":")[1], 16) for l in f if l.startswith(("CapPrm", "CapBnd", "CapEff"))}
    # permitted for reservations, effective only while they are made
    if caps != {"CapPrm": RESERVE_CAPS, "CapBnd": RESERVE_CAPS, "CapEff": 0}:
        fail("the daemon kept %r, expected CAP_CHOWN, CAP_DAC_READ_SEARCH, CAP_LEASE permitted, none effective" % caps)
    write_conf(pool + reserves + vm3)
    d.send_signal(1)
    until("RELOADING=1")
    until("READY=1")
    free0 -= 4  # vm3's
    kept("a reload")
    st = os.stat(os.path.join(mnt, "hpfilld", "vm3"))
    if (st.st_uid, st.st_mode & 0o777) != (nobody, 0o600):
        fail("a reload did not hand vm3 to its owner: %d %o" % (st.st_uid, st.st_mode & 0o777))
    log = stop(d)
    # a restart: the daemon's first fill
    d = daemon()
    kept("a restart")
    log += stop(d)
    if "vm3 reservation: 4/4 2M pages" not in log or "failed" in log:
        fail("the daemon's log:\n" + log)

    # the VM goes: its file is taken back, zeroed, owner and mode as asked, same inode
    vm.stdin.write("\n")
    vm.stdin.flush()
    line = vm.stdout.readline().strip()
    vm.wait()
    if line != "intact":
        fail("the VM's memory: " + line)
    out = once()
    for f, ino in zip(files, inodes):
        st = os.stat(f)
        if st.st_ino != ino or st.st_uid != nobody or "kept" in out:
            fail("%s was not filled again in place (inode %d, was %d, uid %d): %s" % (f, st.st_ino, ino, st.st_uid, out))
        with open(f, "rb") as fh:
            if mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ)[0:4] != bytes(4):
                fail("%s was handed out again with what its last user wrote" % f)
    if (os.stat(files[0]).st_mode & 0o777, os.stat(files[1]).st_mode & 0o777) != (0o640, 0o600):
        fail("modes after the refill: %o %o" % (os.stat(files[0]).st_mode, os.stat(files[1]).st_mode))

    # a real QEMU as the owner, its guest memory the 0600 reservation (paused: it maps the file
    # and runs no guest); it says so on its QMP socket, which it connects to once it is set up
    if shutil.which("qemu-system-x86_64"):
        os.chmod(work, 0o711)
        qsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        qsock.bind(os.path.join(work, "qmp"))
        os.chmod(os.path.join(work, "qmp"), 0o777)
        qsock.listen(1)
        qsock.settimeout(LIMIT)
        qemu = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                 "qemu-system-x86_64", "-accel", "tcg", "-m", "16M", "-object",
                                 "memory-backend-file,id=m,mem-path=%s,share=on,size=16M" % files[1],
                                 "-machine", "pc,memory-backend=m", "-display", "none", "-serial", "none",
                                 "-monitor", "none", "-S", "-chardev", "socket,id=q,path=%s" % os.path.join(work, "qmp"),
                                 "-mon", "chardev=q,mode=control"], stderr=subprocess.PIPE, text=True)
        try:
            conn, _ = qsock.accept()
        except socket.timeout:
            fail("QEMU did not start: %s" % qemu.stderr.read())
        qmp = conn.makefile("rw")
        if "QMP" not in qmp.readline():
            fail("QEMU said no QMP greeting")
        ino = os.stat(files[1]).st_ino
        free0 = free()
        out = once()
        if "kept as it was at %s (in use)" % files[1] not in out:
            fail("--once did not keep the reservation QEMU maps:\n" + out)
        with open("/proc/%d/maps" % qemu.pid) as m:
            maps = m.read()
        if files[1] not in maps or "(deleted)" in maps:
            fail("QEMU's mapping of its memory: %r" % [l for l in maps.splitlines() if "hpfilld" in l])
        if os.stat(files[1]).st_ino != ino or free() != free0:
            fail("--once replaced the reservation QEMU maps (free %d, was %d)" % (free(), free0))
        qmp.write('{"execute": "qmp_capabilities"}\n{"execute": "quit"}\n')
        qmp.flush()
        if qemu.wait(timeout=LIMIT) != 0:
            fail("QEMU exited %d" % qemu.returncode)
        print("QEMU as nobody on %s: kept by --once" % files[1])
    else:
        print("no qemu-system-x86_64: the QEMU case skipped")
    print("PASS")


main()
