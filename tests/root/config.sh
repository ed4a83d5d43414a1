#!/bin/bash
# SPDX-License-Identifier: MIT
# Fills from configuration: --config, and the default files and drop-ins under --root
# (a tree whose sys and proc are the host's, bind-mounted).
. "$(dirname "$0")/lib.sh"

nodes=$(mem_nodes)
first=$(echo $nodes | cut -d' ' -f1)
pool2m_set 0

printf '[Fill]\nMinPercent=100\n\n[Pool]\nPageSize=2M\nAmount=node%s=40M\n' "$first" >"$WORK/a.conf"
expect_rc 0 "$HPFILLD" --once --config "$WORK/a.conf"
[ "$(node_nr "$first" 2048)" = 20 ] || fail "--config gave $(node_nr "$first" 2048) pages"

# --pool replaces the pools of the file
expect_rc 0 "$HPFILLD" --once --config "$WORK/a.conf" --pool "2M:node$first=30"
[ "$(node_nr "$first" 2048)" = 30 ] || fail "--pool did not replace the file's pools"

# the shipped example config parses and plans
expect_rc 0 "$HPFILLD" --once --dry-run --config "$SOURCE_ROOT/conf/default.conf"
expect_in "$WORK/out" "^2M "
# the shipped /etc file configures nothing
expect_rc 0 "$HPFILLD" --once --config "$SOURCE_ROOT/conf/hpfilld.conf"
expect_in "$WORK/err" "nothing to do"

root="$WORK/root"
mkdir -p "$root/sys" "$root/proc" "$root/etc/hpfilld.conf.d" "$root/run/hpfilld.conf.d"
mount --bind /sys "$root/sys" || { echo "SKIP: cannot bind-mount"; exit 77; }
EXTRA_CLEANUP="umount '$root/sys'; umount '$root/proc' 2>/dev/null"
mount --bind /proc "$root/proc"
printf '[Pool]\nPageSize=2M\nAmount=node%s=10\n' "$first" >"$root/etc/hpfilld.conf"
printf '[Pool]\nPageSize=2M\nAmount=node%s=44\n' "$first" >"$root/run/hpfilld.conf.d/50-more.conf"
expect_rc 0 "$HPFILLD" --once --root "$root"
[ "$(node_nr "$first" 2048)" = 44 ] || fail "the drop-in under --root gave $(node_nr "$first" 2048) pages"

# pools on the kernel command line (proc/cmdline below the root) replace the files' pools;
# a bad one is refused, naming it, and nothing changes
mkdir -p "$WORK/root2/proc"
mkdir -p "$WORK/root2/sys"
mount --bind /sys "$WORK/root2/sys"
EXTRA_CLEANUP="$EXTRA_CLEANUP; umount '$WORK/root2/sys'"
echo "BOOT_IMAGE=/vmlinuz quiet hpfilld.pool=2M:node$first=52 hpfilld.min=100" >"$WORK/root2/proc/cmdline"
expect_rc 0 "$HPFILLD" --once --root "$WORK/root2" --config "$WORK/a.conf"
[ "$(node_nr "$first" 2048)" = 52 ] || fail "the kernel command line's pool gave $(node_nr "$first" 2048) pages"
echo "quiet hpfilld.pool=2M:node$first=0" >"$WORK/root2/proc/cmdline"
before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --root "$WORK/root2"
expect_in "$WORK/err" "kernel command line: hpfilld.pool=2M:node$first=0"
echo "quiet hpfilld.pools=2M:1" >"$WORK/root2/proc/cmdline"
expect_rc 2 "$HPFILLD" --once --root "$WORK/root2"
expect_in "$WORK/err" "unknown setting 'hpfilld.pools'"
# all of the memory, at every boot: refused by the memory budget
echo "quiet hpfilld.pool=2M:100%" >"$WORK/root2/proc/cmdline"
expect_rc 2 "$HPFILLD" --once --root "$WORK/root2"
expect_in "$WORK/err" "^hpfilld: node$first: [0-9]+ MiB of huge pages planned \(2M [0-9]+ MiB \(kernel command line: hpfilld.pool=2M:100%\)\)"
[ "$(snapshot)" = "$before" ] || fail "a bad kernel command line changed the pools"

# a bad drop-in stops everything before any change
printf '[Fill]\nShrink=perhaps\n' >"$root/etc/hpfilld.conf.d/60-bad.conf"
before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --root "$root"
expect_in "$WORK/err" "/etc/hpfilld.conf.d/60-bad.conf:2: Shrink="
[ "$(snapshot)" = "$before" ] || fail "a bad drop-in changed the pools"
echo PASS
