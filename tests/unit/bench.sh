#!/bin/sh
# SPDX-License-Identifier: MIT
# hpfilld bench on a fake machine (the fake kernel preloaded): the GIB/S column only where the
# method zeroed the memory (a sysfs fill that does not zero is "-", not hundreds of GiB/s), and
# a node short of the one gigantic page --size asked for told why, not to use a smaller --size.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
bench() {
        want=$1
        shift
        rc=0
        "$HPFILLD" bench --root "$work/m" --runs 1 "$@" >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = "$want" ] || bad "hpfilld bench $*: exit $rc, expected $want: $(cat "$work/out" "$work/err")"
}

# init_on_alloc off: sysfs zeroes nothing, and its row has no rate
fake_machine "$work/m" 1 8192
fake_pools "$work/m"
bench 0 --size 64M
grep -qE '^sysfs +1 +[0-9.]+ +-$' "$work/out" || bad "sysfs without zeroing: a rate: $(cat "$work/out")"
bench 0 --size 64M --json
grep -qF '"mode": "sysfs", "threads_per_node": 1, "ms": ' "$work/out" && grep -qF '"gib_per_s": null}' "$work/out" ||
        bad "sysfs without zeroing in JSON: $(cat "$work/out")"
echo "ok: sysfs without init_on_alloc: no rate ($(grep '^sysfs' "$work/out" || echo JSON))"

# init_on_alloc=1: sysfs zeroes every page at allocation, and its rate is one of memory
echo "init_on_alloc=1" >"$work/m/proc/cmdline"
bench 0 --size 64M
grep -qE '^sysfs +1 +[0-9.]+ +[0-9]+\.[0-9]{2}$' "$work/out" || bad "sysfs under init_on_alloc: no rate: $(cat "$work/out")"
echo "ok: sysfs under init_on_alloc: $(grep '^sysfs' "$work/out")"

# one 1G page a node asked, none granted: what stands in the way, not a smaller --size
fake_machine "$work/m" 1 8192
fake_grant "$work/m" 0 1048576 0
bench 1 --page-size 1G --size 1G
grep -qF "node0 got 0 of 1 page: not one 1G page could be allocated" "$work/err" ||
        bad "1G short: $(cat "$work/err")"
! grep -q "smaller --size" "$work/err" || bad "1G short of the one page asked: a smaller --size advised: $(cat "$work/err")"
echo "ok: 1G, none granted: $(grep 'node0 got' "$work/err")"
passed
