#!/bin/bash
# SPDX-License-Identifier: MIT
# One 1 GiB page at runtime, where the kernel offers them.
. "$(dirname "$0")/lib.sh"

[ -d "$HP/hugepages-1048576kB" ] || { echo "SKIP: this kernel offers no 1 GiB pages"; exit 77; }
# one page on top of what the node holds (others' pages: a 1 GiB page let go might not come back)
b=$(node_nr "$first" 1048576)

# 1 GiB pages at runtime may come back short (alloc_contig); hpfilld retries after compaction.
fill_1g "$first" $((b + 1))
case $rc in
0) [ "$got" = $((b + 1)) ] || fail "exit 0 but node$first holds $got 1G pages" ;;
3) [ "$got" = "$b" ] || fail "exit 3 but node$first holds $got 1G pages"
   expect_in "$WORK/out" "$b/$((b + 1)) page"
   echo "SKIP: the kernel could not find 1 GiB of contiguous memory"; exit 77 ;;
*) fail "exit $rc" ;;
esac
expect_in "$WORK/out" "^1G pool: $((b + 1))/$((b + 1)) page"
echo PASS
