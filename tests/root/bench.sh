#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld bench: a table (or JSON) with every method and thread count, a recommendation,
# and the pools exactly as found afterwards.
. "$(dirname "$0")/lib.sh"

pool2m_set 5
before=$(snapshot)
expect_rc 0 "$HPFILLD" bench --size 64M --runs 1 --json
python3 - "$WORK/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["page_size"] == 2 << 20 and d["bytes_per_node"] == 64 << 20, d
modes = {(r["mode"], r["threads_per_node"]) for r in d["results"]}
assert ("sysfs", 1) in modes, modes
assert ("fault", 1) in modes, modes  # MADV_POPULATE_WRITE is there on the kernels we test on
for r in d["results"]:
    assert r["ms"] > 0 and r["gib_per_s"] > 0, r
rec = (d["recommended"]["mode"], d["recommended"]["threads_per_node"])
assert rec in modes, rec
best = min((r for r in d["results"] if r["mode"] != "auto"), key=lambda r: r["ms"])
assert (best["mode"], best["threads_per_node"]) == rec, (best, rec)
# auto measured, as a fill would, and says what and why
assert ("auto", 0) in modes, modes
a = d["auto"]
assert a["picked"] in ("sysfs", "fault") and a["sysfs_pages_per_s"] > 0 and a["hvo"] in (-1, 0, 1), a
assert a["picked"] in a["why"] and "pages/s" in a["why"], a
assert d["kernel"].startswith("Linux ") and "HVO" in d["kernel"] and "init_on_alloc" in d["kernel"], d
PY
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"

expect_rc 0 "$HPFILLD" bench --size 32M --runs 1
expect_in "$WORK/out" "^MODE +THREADS/NODE +MS +GIB/S$"
expect_in "$WORK/out" "^Recommended: Mode=(sysfs|fault)"
expect_in "$WORK/out" "^auto picked (sysfs|fault), [0-9.]+x the best: .*pages/s"
expect_in "$WORK/out" "^Kernel: Linux .*: HVO (on|off|absent), init_on_alloc (on|off) \(from: (kernel command line|/boot/config|unknown)\)$"
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"

expect_rc 2 "$HPFILLD" bench --size 100T
expect_in "$WORK/err" "more than half of node"
expect_rc 2 "$HPFILLD" bench --size 3M
expect_rc 2 "$HPFILLD" bench --page-size 16M
expect_rc 2 "$HPFILLD" bench --runs 0
[ "$(snapshot)" = "$before" ] || fail "bad input changed the pools"
echo PASS
