#!/bin/bash
# SPDX-License-Identifier: MIT
# One 1 GiB page at runtime, where the kernel offers them.
. "$(dirname "$0")/lib.sh"

[ -d "$HP/hugepages-1048576kB" ] || { echo "SKIP: this kernel offers no 1 GiB pages"; exit 77; }
echo 0 >"$HP/hugepages-1048576kB/nr_hugepages"

# 1 GiB pages at runtime may come back short (alloc_contig); hpfilld retries after compaction.
fill_1g "$first" 1
case $rc in
0) [ "$got" = 1 ] || fail "exit 0 but node$first holds $got 1G pages" ;;
3) [ "$got" = 0 ] || fail "exit 3 but node$first holds $got 1G pages"
   expect_in "$WORK/out" "0/1 page"
   echo "SKIP: the kernel could not find 1 GiB of contiguous memory"; exit 77 ;;
*) fail "exit $rc" ;;
esac
expect_in "$WORK/out" "^1G pool: 1/1 page on"
echo PASS
