#!/bin/bash
# SPDX-License-Identifier: MIT
# A reservation a process (a VM, as the file's owner) maps is kept by --once, the daemon's first
# fill and a reload, whoever owns it and whatever its mode (tests/root/reserve-inuse.py); a
# reload adding Owner= to a daemon started without reservations hands the file over.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

MNT="$WORK/huge"
mkdir -p "$MNT"
# nobody must reach the mount: the work dir is traversable, not listable
chmod 0711 "$WORK"
mount -t hugetlbfs -o pagesize=2M none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
EXTRA_CLEANUP="rm -rf '$MNT/hpfilld'; umount '$MNT'"
getent passwd nobody >/dev/null && getent group nogroup >/dev/null || { echo "SKIP: no user nobody or group nogroup"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
pool2m_set 0
# the VM's helper runs as nobody, who may not read the checkout (a clone in /root): a copy of it
install -m 0644 "$(dirname "$0")/map-files.py" "$WORK/map-files.py"
# (the pool on top of the pages others hold: BASE, lib.sh; its files below $WORK)
TMPDIR=$WORK python3 "$(dirname "$0")/reserve-inuse.py" "$HPFILLD" "$first" "$MNT" "$WORK/map-files.py" "$BASE"
