#!/bin/bash
# SPDX-License-Identifier: MIT
# The model-based test of whose pages are whose (tests/unit/state-model.py) on the real kernel's
# 2M pools: seeded sequences of claims, unclaims, one-off and configuration fills (sysfs and
# auto: the fault method raises nr_overcommit_hugepages), give-backs, daemons, the
# administrator's writes, hpfilld killed (SIGKILL) at its Nth step — a write of a pool attribute
# or a save of the state, before it or just after (tests/fakekernel's HPFILLD_FAKE_KILL_STEP) —
# and two commands interleaved at the host lock; checked after every step against the same
# invariants. In a mount namespace of its own: a run/hpfilld and configuration files of its own
# (the host's state and a package's /etc/hpfilld.conf untouched); the pools are the host's, and
# what others hold in them (a consumer beside the suite) is others'. STATE_MODEL_SEQUENCES
# sequences (200 by default); the pools as found at the end, however it ends.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"
need_test_hooks
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
[ -n "${FAKE_KERNEL:-}" ] || { echo "SKIP: no FAKE_KERNEL (tests/fakekernel's library, as meson test names it)"; exit 77; }

# a state and configuration files of the test's own, in its namespace
mkdir -p /run/hpfilld
mount -t tmpfs -o mode=0755 hpfilld-state-model /run/hpfilld
# (lib.sh unmounts it before it puts the host's state back: in the host's directory)
for f in /etc/hpfilld.conf; do
        [ -e "$f" ] && mount --bind /dev/null "$f"
done
for d in /etc/hpfilld.conf.d /run/hpfilld.conf.d /usr/lib/hpfilld.conf.d; do
        [ -d "$d" ] && mount -t tmpfs -o mode=0755 hpfilld-state-model "$d"
done

STATE_MODEL_SEQUENCES=${STATE_MODEL_SEQUENCES:-200} python3 "$SOURCE_ROOT/tests/unit/state-model.py" --kernel
