#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A workload for the root tests that reserves huge pages without using them: creates FILE in a
# hugetlbfs mount of 2 MiB pages, maps N pages of it MAP_SHARED and touches none, so the pool
# counts them in resv_hugepages (still free). Prints "reserved", waits for a line (or EOF) on
# stdin, and exits. The reservation belongs to the file (hugetlb_reserve_pages() on its inode):
# it lasts until the file is removed. Exit 1 if it cannot map.
import mmap
import os
import sys

n = int(sys.argv[2])
try:
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(fd, n << 21)
    m = mmap.mmap(fd, n << 21, flags=mmap.MAP_SHARED)
except OSError as e:
    print(f"cannot reserve {n} pages: {e}", flush=True)
    sys.exit(1)
print("reserved", flush=True)
sys.stdin.readline()
