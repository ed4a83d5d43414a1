#!/bin/bash
# SPDX-License-Identifier: MIT
# Fills from configuration: --config, and the default files and drop-ins under --root
# (a tree whose sys and proc are the host's, bind-mounted).
. "$(dirname "$0")/lib.sh"

pool2m_set 0
# every pool on top of the pages others hold (BASE, lib.sh): t N is BASE + N
t() { echo $((BASE + $1)); }

printf '[Fill]\nMinPercent=100\n\n[Pool]\nPageSize=2M\nAmount=node%s=%sM\n' "$first" $(($(t 20) * 2)) >"$WORK/a.conf"
expect_rc 0 "$HPFILLD" --once --config "$WORK/a.conf"
[ "$(node_nr "$first" 2048)" = "$(t 20)" ] || fail "--config gave $(node_nr "$first" 2048) pages"

# --pool replaces the pools of the file
expect_rc 0 "$HPFILLD" --once --config "$WORK/a.conf" --pool "2M:node$first=$(t 30)"
[ "$(node_nr "$first" 2048)" = "$(t 30)" ] || fail "--pool did not replace the file's pools"

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
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" "$(t 10)" >"$root/etc/hpfilld.conf"
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" "$(t 44)" >"$root/run/hpfilld.conf.d/50-more.conf"
expect_rc 0 "$HPFILLD" --once --root "$root"
[ "$(node_nr "$first" 2048)" = "$(t 44)" ] || fail "the drop-in under --root gave $(node_nr "$first" 2048) pages"

# pools on the kernel command line (proc/cmdline below the root) replace the files' pools;
# a bad one is refused, naming it, and nothing changes
mkdir -p "$WORK/root2/proc"
mkdir -p "$WORK/root2/sys"
mount --bind /sys "$WORK/root2/sys"
EXTRA_CLEANUP="$EXTRA_CLEANUP; umount '$WORK/root2/sys'"
echo "BOOT_IMAGE=/vmlinuz quiet hpfilld.pool=2M:node$first=$(t 52) hpfilld.min=100" >"$WORK/root2/proc/cmdline"
expect_rc 0 "$HPFILLD" --once --root "$WORK/root2" --config "$WORK/a.conf"
[ "$(node_nr "$first" 2048)" = "$(t 52)" ] || fail "the kernel command line's pool gave $(node_nr "$first" 2048) pages"
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
# a kernel command line longer than a page (bootconfig) is read whole: its hpfilld.pool= counts
{ for i in $(seq 1 700); do printf 'option%s=value ' "$i"; done; echo "hpfilld.pool=2M:node$first=$(t 54)"; } \
        >"$WORK/root2/proc/cmdline"
[ "$(stat -c %s "$WORK/root2/proc/cmdline")" -gt 8192 ] || fail "the long command line is short"
expect_rc 0 "$HPFILLD" --once --root "$WORK/root2"
[ "$(node_nr "$first" 2048)" = "$(t 54)" ] || fail "the long kernel command line's pool gave $(node_nr "$first" 2048) pages"
# beyond the cap: said, not cut
head -c $((1024 * 1024 + 10)) /dev/zero | tr '\0' x >"$WORK/root2/proc/cmdline"
before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --root "$WORK/root2"
expect_in "$WORK/err" "/proc/cmdline: longer than 1048576 bytes"
[ "$(snapshot)" = "$before" ] || fail "a too long kernel command line changed the pools"
rm "$WORK/root2/proc/cmdline"

# a FIFO as --config or as a drop-in is refused at once, not waited on
mkfifo "$WORK/fifo.conf" "$root/etc/hpfilld.conf.d/70-fifo.conf"
expect_rc 2 timeout 20 "$HPFILLD" --once --config "$WORK/fifo.conf"
expect_in "$WORK/err" "$WORK/fifo.conf: not a regular file \(a FIFO\), refused"
expect_rc 2 timeout 20 "$HPFILLD" --once --root "$root"
expect_in "$WORK/err" "/etc/hpfilld.conf.d/70-fifo.conf: not a regular file \(a FIFO\), refused"
rm "$root/etc/hpfilld.conf.d/70-fifo.conf"
[ "$(snapshot)" = "$before" ] || fail "a FIFO changed the pools"

# a drop-in masked the systemd way (a symlink to /dev/null in a directory that comes later)
# is skipped and masks its namesake; so does an empty one
ln -s /dev/null "$root/etc/hpfilld.conf.d/50-more.conf"
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --root "$root"
[ "$(node_nr "$first" 2048)" = "$(t 10)" ] || fail "a masked drop-in still applied: $(node_nr "$first" 2048) pages"
rm "$root/etc/hpfilld.conf.d/50-more.conf"
: >"$root/etc/hpfilld.conf.d/50-more.conf"
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" "$(t 12)" >"$root/etc/hpfilld.conf"
pool2m_set 0
expect_rc 0 "$HPFILLD" --once --root "$root"
[ "$(node_nr "$first" 2048)" = "$(t 12)" ] || fail "an empty drop-in did not mask: $(node_nr "$first" 2048) pages"
rm "$root/etc/hpfilld.conf.d/50-more.conf"

# a bad drop-in stops everything before any change
printf '[Fill]\nShrink=perhaps\n' >"$root/etc/hpfilld.conf.d/60-bad.conf"
before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --root "$root"
expect_in "$WORK/err" "$root/etc/hpfilld.conf.d/60-bad.conf:2: Shrink="
[ "$(snapshot)" = "$before" ] || fail "a bad drop-in changed the pools"

# --check-config: the same checks, every mistake of a file at once, nothing changed or recorded
# (the last fill's record is in the state: the host's, and the tree's)
records() { cat /run/hpfilld/state "$root/run/hpfilld/state" 2>/dev/null || true; }
record_before=$(records)
expect_rc 2 "$HPFILLD" --check-config --root "$root"
expect_in "$WORK/err" "$root/etc/hpfilld.conf.d/60-bad.conf:2: Shrink="
printf '[Fill]\nShrink=perhaps\nMinPercnet=5\n[Pool]\nPageSize=2M\nAmount=node%s=9\n' "$first" >"$WORK/b.conf"
expect_rc 2 "$HPFILLD" --check-config --config "$WORK/b.conf"
expect_in "$WORK/err" "b.conf:2: Shrink="
expect_in "$WORK/err" "b.conf:3: unknown key 'MinPercnet' in \[Fill\]; did you mean 'MinPercent'\?"
# a configuration that reads well but does not fit the machine fails the check too
printf '[Pool]\nPageSize=2M\nAmount=node999=1\n' >"$WORK/b.conf"
expect_rc 2 "$HPFILLD" --check-config --config "$WORK/b.conf"
expect_in "$WORK/err" "node999 does not exist"
# a target above the pool's, so that a real fill would change it
printf '[Fill]\nMinPercent=90%%\n[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" "$(t 64)" >"$WORK/b.conf"
expect_rc 0 "$HPFILLD" --check-config --config "$WORK/b.conf"
[ ! -s "$WORK/out" ] || fail "--check-config printed a plan: $(cat "$WORK/out")"
[ "$(snapshot)" = "$before" ] || fail "--check-config changed the pools"
[ "$(records)" = "$record_before" ] || fail "--check-config wrote the state (the fill record)"
expect_rc 2 "$HPFILLD" --check-config --dry-run --config "$WORK/b.conf"
echo PASS
