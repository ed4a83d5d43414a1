#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every command of the README's Usage block runs, in its order, with the real binary on a fake
machine under --root (two nodes of 16 GiB, a 2M hugetlbfs mount at /dev/hugepages, the README's
Configuration block as its /etc/hpfilld.conf) and the unit suite's fake kernel:
- a fill, a dry run, a claim, status, bench: exit 0;
- a command with --reserve: everything of it accepted, then refused for the one thing a fake tree
  cannot do (fault pages in: under --root MADV_POPULATE_WRITE counts as absent), exit 2;
- give-back after the fills: exit 0 once nothing holds the pages (the fake kernel keeps no free
  counts: the test says every page is free, as on a machine where nothing took them), the claim
  kept;
- `hpfilld` alone, the daemon: READY=1 with the configuration's pools filled, then SIGTERM.
Nothing of the host is read."""
import os
import re
import shlex
import subprocess
import sys

import daemonlib
from daemonlib import fail

HPFILLD = os.environ["HPFILLD"]
SOURCE = os.environ["SOURCE_ROOT"]
FAKE_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake-tree.sh")
README = os.path.join(SOURCE, "README.md")
MADV = "reservations need MADV_POPULATE_WRITE (Linux 5.14 or later)"


def section(text, title):
    m = re.search(r"^## %s\n(.*?)^## " % re.escape(title), text, re.S | re.M)
    if not m:
        fail("no section '## %s' in the README" % title)
    return m.group(1)


def block(text, lang):
    m = re.search(r"^```%s\n(.*?)^```$" % lang, text, re.S | re.M)
    if not m:
        fail("no ```%s block" % lang)
    return m.group(1)


def without_reserve(ini):
    """The configuration without its [Reserve] sections (a fake tree cannot make them)."""
    out, skip = [], False
    for line in ini.splitlines():
        if line.startswith("["):
            skip = line == "[Reserve]"
        if not skip:
            out.append(line)
    return "\n".join(out) + "\n"


def pools(root):
    """{(node, kB): nr_hugepages} of the fake machine."""
    found = {}
    base = root + "/sys/devices/system/node"
    for node in sorted(os.listdir(base)):
        hp = os.path.join(base, node, "hugepages")
        if not node.startswith("node") or not os.path.isdir(hp):
            continue
        for size in os.listdir(hp):
            with open(os.path.join(hp, size, "nr_hugepages")) as f:
                found[(node, size)] = int(f.read())
    return found


def all_free(root):
    for (node, size), n in pools(root).items():
        daemonlib.write("%s/sys/devices/system/node/%s/hugepages/%s/free_hugepages" % (root, node, size), "%d\n" % n)


def run(argv):
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=daemonlib.LIMIT)
    return p.returncode, p.stdout, p.stderr


def test(hpfilld, work, root, notify):
    readme = open(README).read()
    subprocess.run(["sh", "-c", '. "$1"; fake_machine "$2" 2 16384; fake_mount "$2" /dev/hugepages 2M; '
                    'mkdir -p "$2/run/hpfilld"', "sh", FAKE_TREE, root], check=True)
    daemonlib.write(root + "/etc/hpfilld.conf", without_reserve(block(section(readme, "Configuration"), "ini")))
    lines = [l.split("  #")[0].strip() for l in block(section(readme, "Usage"), "sh").splitlines()]
    lines = [l for l in lines if l]
    if len(lines) < 10:
        fail("only %d commands in the README's Usage block" % len(lines))
    seen = set()
    for line in lines:
        argv = shlex.split(line)
        if argv[0] != "hpfilld":
            fail("'%s': not an hpfilld command" % line)
        argv = [hpfilld] + argv[1:] + ["--root", root]
        if len(argv) == 3:  # hpfilld alone: the daemon, on the configuration
            d = daemonlib.start(notify, argv)
            notify.until("READY=1")
            err = daemonlib.stop(d, notify)
            if not any(n > 0 for n in pools(root).values()):
                fail("'%s': READY=1 with empty pools; stderr: %s" % (line, err))
            seen.add("daemon")
            print("ok: '%s': READY=1, pools filled, SIGTERM exits 0" % line)
            continue
        if argv[1] == "give-back":
            all_free(root)
        rc, out, err = run(argv)
        if "--reserve" in argv:
            said = [l for l in err.splitlines() if "Cannot look for reservations" not in l]
            if rc != 2 or len(said) != 1 or not said[0].endswith(MADV):
                fail("'%s': exit %d, expected 2 for the fake tree's lack of MADV_POPULATE_WRITE alone; "
                     "stderr: %s" % (line, rc, err))
            print("ok: '%s': accepted, then refused for the fake tree alone" % line)
            continue
        if rc != 0:
            fail("'%s': exit %d; stdout: %s stderr: %s" % (line, rc, out, err))
        if argv[1] == "give-back" and "claim" not in out + err:
            fail("'%s': no word of the claim kept; stdout: %s stderr: %s" % (line, out, err))
        seen.add(argv[1])
        print("ok: '%s': exit 0" % line)
    for want in ("daemon", "--once", "claim", "unclaim", "give-back", "status", "bench", "--check-config"):
        if want not in seen:
            fail("the README's Usage block has no '%s' command that was run" % want)


if __name__ == "__main__":
    daemonlib.run(test, HPFILLD, "readme-usage.")
