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
best = min(d["results"], key=lambda r: r["ms"])
assert (best["mode"], best["threads_per_node"]) == rec, (best, rec)
PY
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"

expect_rc 0 "$HPFILLD" bench --size 32M --runs 1
expect_in "$WORK/out" "^MODE +THREADS/NODE +MS +GIB/S$"
expect_in "$WORK/out" "^Recommended: Mode=(sysfs|fault)"
[ "$(snapshot)" = "$before" ] || fail "bench did not put the pools back"

expect_rc 2 "$HPFILLD" bench --size 100T
expect_in "$WORK/err" "more than half of node"
expect_rc 2 "$HPFILLD" bench --size 3M
expect_rc 2 "$HPFILLD" bench --page-size 16M
expect_rc 2 "$HPFILLD" bench --runs 0
[ "$(snapshot)" = "$before" ] || fail "bad input changed the pools"
echo PASS
