#!/bin/sh
# SPDX-License-Identifier: MIT
# The alert rules the man page documents (doc/hpfilld-alerts.yml): valid for Prometheus
# (promtool check rules), and they fire, and only then, on the series they are about (promtool
# test rules with doc/hpfilld-alerts-test.yml). Skips without promtool (package prometheus).
set -eu
doc=${SOURCE_ROOT:?}/doc
command -v promtool >/dev/null || { echo "SKIP: no promtool (package prometheus)"; exit 77; }
promtool check rules "$doc/hpfilld-alerts.yml"
cd "$doc"
promtool test rules hpfilld-alerts-test.yml
# the copy in hpfilld(8): the block from "groups:" to the end of the example
sed -n '/^Two alert rules/,/^# /p' "$SOURCE_ROOT/man/hpfilld.8.scd" | sed -n '/^groups:$/,/^```$/p' | sed '$d' >"${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml"
trap 'rm -f "${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml"' EXIT
grep -q 'alert: HugePagePoolShort' "${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml" || { echo "FAIL: no alert rules found in hpfilld.8.scd"; exit 1; }
promtool check rules "${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml"
