#!/bin/bash
# SPDX-License-Identifier: MIT
# Memory hotplug uevents: only the kernel's start a refill, at most one per interval
# (tests/root/uevent.py does the talking).
. "$(dirname "$0")/lib.sh"

pool2m_set 0
rc=0
# (the pool on top of the pages others hold: BASE, lib.sh; its files below $WORK)
TMPDIR=$WORK python3 "$(dirname "$0")/uevent.py" "$HPFILLD" "$first" "$BASE" || rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "uevent.py"
echo PASS
