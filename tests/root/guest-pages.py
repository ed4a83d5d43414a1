#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A guest's memory as the root tests play it, on a reservation's file of 2 MiB pages:
#   guest-pages.py mark FILE N    a VM that ran and went: every page of FILE there (N of them), maps
#                                 it shared, writes a nonzero pattern over every byte of every page,
#                                 unmaps, closes, checks the file now holds the pattern, exits
#   guest-pages.py zeros FILE N   the next VM's view: FILE is N pages, every one of them in the file
#                                 (prefaulted: no hole that would read as zeros), every byte zero
# Exit 0 when so; else 1, with what is wrong (the pages that are not, and what they hold).
import mmap
import os
import sys

PAGE = 2 << 20


def pattern(i):
    """Page @i of a departed guest: its number in every 32 bytes, never a zero byte."""
    return (b"departed guest, page %6d....\n" % i) * (PAGE // 32)


def check_file(fd, path, n):
    st = os.fstat(fd)
    if st.st_size != n * PAGE:
        sys.exit(f"{path}: {st.st_size} bytes, expected {n} pages ({n * PAGE})")
    # hugetlbfs counts the pages in its page cache in i_blocks (hugetlb_add_to_page_cache())
    if st.st_blocks * 512 != st.st_size:
        sys.exit(f"{path}: {st.st_blocks * 512 // PAGE} of its {n} pages there: not prefaulted")


def mark(path, n):
    fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    check_file(fd, path, n)
    m = mmap.mmap(fd, n * PAGE, flags=mmap.MAP_SHARED)
    for i in range(n):
        m[i * PAGE:(i + 1) * PAGE] = pattern(i)
    m.close()
    # what the next guest must not see is in the file, not only in this process
    bad = [i for i in range(n) if os.pread(fd, PAGE, i * PAGE) != pattern(i)]
    os.close(fd)
    if bad:
        sys.exit(f"{path}: the pattern did not stay in pages {bad}")


def zeros(path, n):
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    check_file(fd, path, n)
    zero = bytes(PAGE)
    bad = []
    for i in range(n):
        data = os.pread(fd, PAGE, i * PAGE)
        if data != zero:
            at = len(data) - len(data.lstrip(b"\0"))
            bad.append(f"page {i} at byte {at}: {data[at:at + 32]!r}")
    os.close(fd)
    if bad:
        sys.exit(f"{path}: {len(bad)} of {n} pages not zeroed: " + "; ".join(bad))


if len(sys.argv) != 4 or sys.argv[1] not in ("mark", "zeros"):
    sys.exit("usage: guest-pages.py mark|zeros FILE N")
(mark if sys.argv[1] == "mark" else zeros)(sys.argv[2], int(sys.argv[3]))
