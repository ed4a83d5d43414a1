#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A VM as the root tests play one (run it as the reservation's owner): maps each hugetlbfs FILE
# shared, for writing, as QEMU's memory-backend-file,share=on does, writes a marker at its start
# and closes the file (the mapping keeps it open). Prints "mapped", waits for a line (or EOF)
# on stdin, then prints "intact" if every marker is still there and no mapping has become
# "(deleted)" (its file unlinked under it), or what is wrong. Exit 1 if it cannot map.
import mmap
import os
import sys

MARKER = b"vm!!"
maps = []
try:
    for path in sys.argv[1:]:
        fd = os.open(path, os.O_RDWR)
        m = mmap.mmap(fd, os.fstat(fd).st_size, flags=mmap.MAP_SHARED)
        os.close(fd)
        m[0:4] = MARKER
        maps.append((path, m))
except OSError as e:
    print(f"cannot map {path}: {e}", flush=True)
    sys.exit(1)
print("mapped", flush=True)
sys.stdin.readline()
wrong = [p for p, m in maps if m[0:4] != MARKER]
with open("/proc/self/maps") as f:
    deleted = [l.split(None, 5)[-1].strip() for l in f if "(deleted)" in l]
if wrong or deleted:
    print(f"markers lost: {wrong}, mappings deleted: {deleted}", flush=True)
else:
    print("intact", flush=True)
