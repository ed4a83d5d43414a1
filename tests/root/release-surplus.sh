#!/bin/bash
# SPDX-License-Identifier: MIT
# ReleaseOnStop= and `hpfilld bench` beside a workload's surplus pages: with a workload holding
# 10 surplus pages of an empty pool (persistent 0), the daemon fills 20 (promoting the 10: the
# configuration's now) and on SIGTERM gives back its free pages only (hpfilld(8), OWNERS): the
# 10 in use stay persistent, the configuration's, and give-back returns them once the workload
# is gone. bench leaves the pool with 0 persistent pages, the workload's 10 surplus as found.
. "$(dirname "$0")/lib.sh"

G=$HP/hugepages-2048kB
# the persistent pages beyond the ones others hold (BASE_ALL, lib.sh)
persistent() { echo $(($(cat $G/nr_hugepages) - $(cat $G/surplus_hugepages) - BASE_ALL)); }
expect_pool() { # persistent surplus what
        [ "$(persistent)/$(cat $G/surplus_hugepages)" = "$1/$2" ] ||
                fail "$3: $(persistent) persistent and $(cat $G/surplus_hugepages) surplus pages, expected $1 and $2"
}
pool2m_set 0
echo 10 >$G/nr_overcommit_hugepages

# the daemon, ReleaseOnStop=yes; its report line on stderr says the fill is done
hold_pages 10
expect_pool 0 10 "the workload"
printf '[Fill]\nReleaseOnStop=yes\n[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" $((BASE + 20)) >"$WORK/a.conf"
daemon_until "2M pool: $((BASE + 20))/$((BASE + 20)) pages" --config "$WORK/a.conf" --mode sysfs
expect_pool 20 0 "the daemon's fill"
daemon_stop
expect_in "$WORK/derr.rest" "2M pool of node$first: 10 pages given back \($((BASE + 20)) -> $((BASE + 10))\); the rest are in use and stay the configuration's"
expect_pool 10 0 "ReleaseOnStop"
hold_release
expect_pool 10 0 "the workload gone: its pages free, still the configuration's"
expect_rc 0 "$HPFILLD" give-back
expect_in "$WORK/out" "2M pool of node$first: 10 pages given back \($((BASE + 10)) -> $BASE\)"
[ "$(pool2m_nr)" = "$BASE_ALL" ] || fail "give-back: the pool holds $(pool2m_nr) pages once the workload is gone"

# bench, the same
hold_pages 10
expect_rc 0 "$HPFILLD" bench --size 8M --runs 1
expect_pool 0 10 "bench"
hold_release
[ "$(pool2m_nr)" = "$BASE_ALL" ] || fail "bench: the pool holds $(pool2m_nr) pages once the workload is gone"
echo 0 >$G/nr_overcommit_hugepages
echo PASS
