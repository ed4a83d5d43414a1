#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A workload for the root tests that keeps asking for huge pages: maps 1, 2, ... N 2 MiB pages in
# turn (reserved at mmap(), as a workload without MAP_NORESERVE does; a growing request asks for
# more than it gave back the round before), touches each, unmaps, and again, until a line (or
# EOF) comes on stdin. Prints "mapping" after its first N rounds, then at the end
# "rounds R failed F" and, for a failure, what it was. Every request must succeed.
import mmap
import select
import sys

MAP_HUGETLB = 0x40000
MAP_HUGE_SHIFT = 26
SIZE = 2 << 20

n = int(sys.argv[1])
rounds = failed = 0
first_error = ""
told = False
while True:
    try:
        k = 1 + rounds % n
        m = mmap.mmap(-1, k * SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB |
                      (21 << MAP_HUGE_SHIFT))
        for i in range(k):
            m[i * SIZE] = 7
        m.close()
    except OSError as e:
        failed += 1
        first_error = first_error or f"round {rounds + 1}: {e}"
    rounds += 1
    if not told and rounds >= n:
        print("mapping" if not failed else f"cannot map {n} pages: {first_error}", flush=True)
        told = True
        if failed:
            sys.exit(1)
    if select.select([sys.stdin], [], [], 0)[0]:
        break
print(f"rounds {rounds} failed {failed}" + (f" ({first_error})" if failed else ""), flush=True)
sys.exit(1 if failed else 0)
