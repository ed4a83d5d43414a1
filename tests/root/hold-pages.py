#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A workload for the root tests: maps and touches N huge pages of SIZE_KB (default 2048) and
# holds them. Prints "holding" once every page is in, then waits for a line (or EOF) on stdin,
# checks the pages still hold what it wrote, prints "intact" and exits. Exit 1 if it cannot map.
import mmap
import sys

MAP_HUGETLB = 0x40000
MAP_HUGE_SHIFT = 26

n = int(sys.argv[1])
size = int(sys.argv[2]) * 1024 if len(sys.argv) > 2 else 2 << 20
try:
    m = mmap.mmap(-1, n * size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB |
                  ((size.bit_length() - 1) << MAP_HUGE_SHIFT))
    for i in range(n):
        m[i * size] = 7
except OSError as e:
    print(f"cannot map {n} pages: {e}", flush=True)
    sys.exit(1)
print("holding", flush=True)
sys.stdin.readline()
print("intact" if all(m[i * size] == 7 for i in range(n)) else "changed", flush=True)
