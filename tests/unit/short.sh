#!/bin/sh
# SPDX-License-Identifier: MIT
# A pool that comes back short, on every machine: the fake kernel (fake_grant in fake-tree.sh)
# grants fewer pages than asked, so each exit status, report line, warning and boot advice of a
# short fill is checked here, whatever the host's kernel finds (tests/root/short.sh is the real
# kernel's twin, and skips where it finds every page).
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
# has FILE LINE: FILE holds LINE, whole
has() {
        grep -qxF -- "$2" "$1" || bad "no '$2' in $1: $(cat "$1")"
}
# has_pool FILE HEAD TAIL: FILE has the pool line "HEAD in <time> TAIL" (the time not asserted)
has_pool() {
        grep -qE -- "^$2 in [0-9.]+ m?s $3\$" "$1" || bad "no '$2 in ... $3' in $1: $(cat "$1")"
}
node_nr() { cat "$work/m/sys/devices/system/node/node$1/hugepages/hugepages-$2kB/nr_hugepages"; }

# 1G pages: the kernel finds 2 of the 4 asked for on node0. Exit 3, the report, the warning and
# the three kinds of boot advice; then the record of the fill as status shows it.
fake_machine "$work/m" 2 8192
fake_grant "$work/m" 0 1048576 2
run 3 --once --pool 1G:node0=4
[ "$(node_nr 0 1048576)" = 2 ] || bad "node0 holds $(node_nr 0 1048576) 1G pages, the fake kernel granted 2"
has_pool "$work/out" "1G pool: 2/4 pages on 1 node" "\(sysfs, 1 writer\), 1 retry round"
has "$work/out" "  node0: 0 -> 2 (target 4, short)"
has "$work/err" "hpfilld: 1G pool: 2 of 4 pages, below the minimum of 100% (MinPercent=, --min)"
has "$work/out" "To have these pages at the next boot, add to the kernel command line:"
has "$work/out" "  hugepagesz=1G hugepages=0:4"
has "$work/out" "or let hpfilld fill them from the initramfs:"
has "$work/out" "  hpfilld.pool=1G:node0=4"
has "$work/out" "or keep a CMA area for the gigantic pages, which hpfilld can then fill at any time"
has "$work/out" "  hugetlb_cma=0:4G"
echo "ok: 1G, 2 of 4 granted: exit 3, $(head -n 1 "$work/out")"
run 0 status
grep -qE "^Last fill: .*, exit status 3$" "$work/out" || bad "status: no 'exit status 3': $(cat "$work/out")"
has "$work/out" "  exit status 3: a pool came back short of its minimum (MinPercent=, --min)"
has "$work/out" "  hugepagesz=1G hugepages=0:4"
grep -qE "^1G +node0 +4 +2 +2\.00 " "$work/out" || bad "status: not 2 of 4 1G pages on node0: $(cat "$work/out")"
# the fill's summary (its report's pool lines), as the record keeps it
grep -qE "^  1G pool: 2/4 pages on 1 node in [0-9.]+ m?s " "$work/out" || bad "status: no summary of the fill: $(cat "$work/out")"
echo "ok: status after it: exit status 3 recorded, the summary and the advice kept"

# the same with --min 50: 2 of 4 is enough, exit 0, the pool still said short and advised
fake_machine "$work/m" 2 8192
fake_grant "$work/m" 0 1048576 2
run 0 --once --min 50 --pool 1G:node0=4
has "$work/out" "  node0: 0 -> 2 (target 4, short)"
has "$work/out" "  hugepagesz=1G hugepages=0:4"
grep -q "below the minimum" "$work/err" && bad "--min 50 with 50%: $(cat "$work/err")"
# and 1 of 4 is not
fake_machine "$work/m" 2 8192
fake_grant "$work/m" 0 1048576 1
run 3 --once --min 50 --pool 1G:node0=4
has "$work/err" "hpfilld: 1G pool: 1 of 4 pages, below the minimum of 50% (MinPercent=, --min)"
echo "ok: --min 50: 2 of 4 exit 0, 1 of 4 exit 3"

# 2M pages spread over two nodes, node1 granting 100 of its 256: the other node full, exit 3,
# the advice per node; the same as JSON
fake_machine "$work/m" 2 8192
fake_grant "$work/m" 1 2048 100
run 3 --once --pool 2M:1G
[ "$(node_nr 0 2048)/$(node_nr 1 2048)" = 256/100 ] || bad "2M: nodes hold $(node_nr 0 2048)/$(node_nr 1 2048), not 256/100"
has_pool "$work/out" "2M pool: 356/512 pages on 2 nodes" "\(sysfs, 1 writer\), 1 retry round"
has "$work/out" "  node0: 0 -> 256 (target 256)"
has "$work/out" "  node1: 0 -> 100 (target 256, short)"
has "$work/out" "  hugepagesz=2M hugepages=0:256,1:256"
has "$work/out" "  hpfilld.pool=2M:node0=256,node1=256"
grep -q hugetlb_cma "$work/out" && bad "CMA advised for 2M pages: $(cat "$work/out")"
has "$work/err" "hpfilld: 2M pool: 356 of 512 pages, below the minimum of 100% (MinPercent=, --min)"
echo "ok: 2M, node1 granting 100 of 256: exit 3, $(head -n 1 "$work/out")"
fake_machine "$work/m" 2 8192
fake_grant "$work/m" 1 2048 100
run 3 --once --json --pool 2M:1G
grep -q '^{"kind": "report", "exit_status": 3, "exit_meaning": "short", ' "$work/out" || bad "JSON: $(cat "$work/out")"
grep -qF '"target": 512, "obtained": 356, "met": false' "$work/out" || bad "JSON: not 356 of 512: $(cat "$work/out")"
grep -qF '"next_boot": {"cmdline": "hugepagesz=2M hugepages=0:256,1:256", "initramfs": "hpfilld.pool=2M:node0=256,node1=256"}' "$work/out" ||
        bad "JSON: no next_boot: $(cat "$work/out")"
echo "ok: the same as JSON: exit_status 3, next_boot"

# nothing granted, with --drop-caches: the caches are dropped (3 written), the rounds say so
fake_machine "$work/m" 1 8192
fake_grant "$work/m" 0 2048 0
run 3 --once --drop-caches --pool 2M:100
has "$work/out" "  node0: 0 -> 0 (target 100, short)"
grep -qE "^2M pool: 0/100 pages on 1 node in [0-9.]+ m?s \(sysfs, 1 writer\), [0-9]+ retry rounds? \(caches dropped\)$" "$work/out" ||
        bad "--drop-caches: $(cat "$work/out")"
[ "$(cat "$work/m/proc/sys/vm/drop_caches")" = 3 ] || bad "drop_caches reads '$(cat "$work/m/proc/sys/vm/drop_caches")', not 3"
echo "ok: nothing granted, --drop-caches: $(head -n 1 "$work/out")"

# and the kernel granting everything: exit 0, no advice
fake_machine "$work/m" 2 8192
run 0 --once --pool 1G:node0=4
has "$work/out" "  node0: 0 -> 4 (target 4)"
grep -q "next boot" "$work/out" && bad "advice for a full pool: $(cat "$work/out")"
echo "ok: all granted: exit 0, $(head -n 1 "$work/out")"
passed
