#!/bin/bash
# SPDX-License-Identifier: MIT
# --dry-run prints the plan and changes nothing on the host.
. "$(dirname "$0")/lib.sh"

pool2m_set 3
before=$(snapshot)
expect_rc 0 "$HPFILLD" --once --dry-run --pool 2M:200M
expect_in "$WORK/out" "^SIZE +NODE +NOW +TARGET +DELTA +METHOD +THREADS +ACTION$"
expect_in "$WORK/out" "^2M +node[0-9]+ +[0-9]+ +[0-9]+ +\+[0-9]+ +(sysfs +1|fault +[0-9]+) +grow$"
expect_in "$WORK/out" "^2M: (sysfs|fault): "
expect_rc 0 "$HPFILLD" --once -n --shrink --pool 2M:2
expect_in "$WORK/out" "shrink|at target"
[ "$(snapshot)" = "$before" ] || fail "--dry-run changed the pools"
echo PASS
