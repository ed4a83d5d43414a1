#!/bin/bash
# SPDX-License-Identifier: MIT
# Everything a run needs is checked before its first write, and --dry-run exits as the run
# would: the memory budget of each node, a reservation without a hugetlbfs mount, a user who
# may not write the pools.
. "$(dirname "$0")/lib.sh"

[ -d "$HP/hugepages-1048576kB" ] || { echo "SKIP: this kernel offers no 1 GiB pages"; exit 77; }
pool2m_set 4
before=$(snapshot)

# 120% of each node's memory: refused, naming the node and the numbers
for dry in "" --dry-run; do
        expect_rc 2 "$HPFILLD" --once $dry --pool 2M:60% --pool 1G:60%
        expect_in "$WORK/err" "^hpfilld: node$first: [0-9]+ MiB of huge pages planned \(2M [0-9]+ MiB \(--pool 2M:60%\), 1G [0-9]+ MiB \(--pool 1G:60%\)\), more than the [0-9]+ MiB left of its [0-9]+ MiB of memory after [0-9]+ MiB of headroom"
done
expect_rc 2 "$HPFILLD" --once --pool 2M:100%
expect_in "$WORK/err" "MEMORY BUDGET in hpfilld\(8\)"
[ "$(snapshot)" = "$before" ] || fail "a plan over the budget changed the pools"

# no hugetlbfs mount for 1G pages: the 2M pool is not filled either
if ! awk '$3 == "hugetlbfs"' /proc/self/mounts | grep -q "pagesize=1024M"; then
        for dry in "" --dry-run; do
                expect_rc 2 "$HPFILLD" --once $dry --pool "2M:node$first=$((BASE + 20))" --reserve "g:1G:1@$first"
                expect_in "$WORK/err" "^hpfilld: --reserve g:1G:1@$first: no hugetlbfs mount for 1G pages"
        done
        [ "$(snapshot)" = "$before" ] || fail "a reservation without a mount changed the pools"
fi

# not root: the run stops at the host lock, before it reads anything (every command that
# changes a pool takes it first); the dry run takes none, prints its plan and fails as the run would
expect_rc 1 setpriv --reuid=nobody --regid=nogroup --clear-groups "$HPFILLD" --once --pool "2M:node$first=$((BASE + 20))"
expect_in "$WORK/err" "Cannot open /run/hpfilld/host.lock: Permission denied"
expect_rc 1 setpriv --reuid=nobody --regid=nogroup --clear-groups "$HPFILLD" --once --dry-run --pool "2M:node$first=$((BASE + 20))"
expect_in "$WORK/err" "Cannot write /sys/.*nr_hugepages: Permission denied \(are you root\?\)"
expect_in "$WORK/out" "^2M +node$first +$((BASE + 4)) +$((BASE + 20)) +\+16 "
[ "$(snapshot)" = "$before" ] || fail "an unprivileged run changed the pools"
echo PASS
