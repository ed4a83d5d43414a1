#!/bin/bash
# SPDX-License-Identifier: MIT
# The admin's one-offs on this kernel: --pool and --reserve are the plan of the run (a
# configuration's [Pool] and [Reserve] are not used: here a file given with --config, as the
# suite never reads /etc), --reserve's owner, group and mode, --create-mounts, status --kubelet
# and give-back (a workload's pages, a mapped reservation and another consumer's pages stay).
# In a mount namespace of its own, on hugetlbfs mounts it makes; from none of hpfilld's state in
# /run/hpfilld, which lib.sh puts back as found.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

G=$HP/hugepages-2048kB
MNT="$WORK/huge"
mkdir -p "$MNT"
mount -t hugetlbfs -o pagesize=2M none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
EXTRA_CLEANUP="rm -rf '$MNT/hpfilld'; umount '$MNT'"
pool2m_set 0
# the pools on top of the pages others hold (BASE, BASE_ALL: lib.sh)

# a configuration whose [Reserve] this kernel cannot make (a node it lacks) and whose [Pool] is
# larger: a one-off --pool fills its own pool alone
printf '[Pool]\nPageSize=2M\nAmount=node%s=40\n[Reserve]\nName=cfg\nPageSize=2M\nAmount=4\nNode=4000\n' "$first" \
        >"$WORK/etc.conf"
expect_rc 2 "$HPFILLD" --once --config "$WORK/etc.conf"
expect_in "$WORK/err" "etc.conf:4: node4000 does not exist"
[ "$(pool2m_nr)" = "$BASE_ALL" ] || fail "a refused configuration changed the pool: $(pool2m_nr)"
expect_rc 0 "$HPFILLD" --once --shrink --config "$WORK/etc.conf" --pool "2M:node$first=$((BASE + 10))"
expect_in "$WORK/out" "^Plan from the command line \(--pool, --reserve\): the configuration's pools, reservations and claims are not used$"
[ "$(node_nr "$first" 2048)" = $((BASE + 10)) ] || fail "--pool 2M:node$first=$((BASE + 10)) left $(node_nr "$first" 2048) pages"
[ ! -e "$MNT/hpfilld/cfg" ] || fail "the configuration's reservation was made"
echo "ok: --once --pool with a configuration that reserves: its pool alone"

# --reserve with owner, group and mode; the configuration's [Pool] (40 pages) is not used either
expect_rc 0 "$HPFILLD" --once --config "$WORK/etc.conf" --reserve "vm1:2M:4@node$first,owner=nobody,group=nogroup,mode=0640"
[ "$(stat -c '%a %U %G %s' "$MNT/hpfilld/vm1")" = "640 nobody nogroup $((4 << 21))" ] ||
        fail "vm1: $(stat -c '%a %U %G %s' "$MNT/hpfilld/vm1")"
[ "$(node_nr "$first" 2048)" -lt $((BASE + 40)) ] || fail "--reserve alone filled the configuration's pool: $(node_nr "$first" 2048)"
expect_rc 0 "$HPFILLD" --release vm1
echo "ok: --reserve vm1:2M:4@node$first,owner=nobody,group=nogroup,mode=0640"

# --create-mounts: no hugetlbfs mount in this namespace now, then one at the documented place of
# the default page size, /dev/hugepages (its directory is systemd's on the host, kept there)

umount "$MNT"
# where systemd is not PID 1 (a container, CI) there is no /dev/hugepages: hpfilld makes it, and
# the test removes it at the end
made_dir=
[ -d /dev/hugepages ] || made_dir=yes
EXTRA_CLEANUP="rm -rf /dev/hugepages/hpfilld; while mountpoint -q /dev/hugepages; do umount /dev/hugepages; done; [ -z '$made_dir' ] || rmdir /dev/hugepages"
[ "$(awk '$3 == "hugetlbfs"' /proc/self/mounts)" = "" ] || fail "a hugetlbfs mount is left: $(grep hugetlbfs /proc/self/mounts)"
if [ "$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)" != 2048 ]; then
        echo "SKIP: the default huge page size is not 2M (--create-mounts would make a directory in the host's /dev)"
        exit 77
fi
pool2m_set 0
# a plan refused (a reservation larger than the node): nothing mounted, no directory made
expect_rc 2 "$HPFILLD" --once --create-mounts --pool "2M:node$first=$((BASE + 8))" --reserve "cm:2M:99999999@node$first"
expect_in "$WORK/err" "99999999 2M pages are more than its memory"
! mountpoint -q /dev/hugepages || fail "--create-mounts mounted /dev/hugepages for a run whose plan was refused"
[ -z "$made_dir" ] || [ ! -e /dev/hugepages ] || fail "--create-mounts made /dev/hugepages for a run whose plan was refused"
[ "$(pool2m_nr)" = "$BASE_ALL" ] || fail "a run refused for its plan changed the pool"
expect_rc 2 "$HPFILLD" --once --pool "2M:node$first=$((BASE + 8))" --reserve "cm:2M:4@node$first"
expect_in "$WORK/err" "no hugetlbfs mount for 2M pages \(--create-mounts makes one, or: mkdir -p /dev/hugepages; mount -t hugetlbfs -o pagesize=2M none /dev/hugepages\)"
[ "$(pool2m_nr)" = "$BASE_ALL" ] || fail "a run refused for its mount changed the pool"
expect_rc 0 "$HPFILLD" --once --dry-run --create-mounts --pool "2M:node$first=$((BASE + 8))" --reserve "cm:2M:4@node$first"
expect_in "$WORK/err" "no hugetlbfs mount for its pages yet: --create-mounts mounts one at /dev/hugepages"
! mountpoint -q /dev/hugepages || fail "--dry-run --create-mounts mounted /dev/hugepages"
# CreateMounts=yes in a file: --check-config and --dry-run name the setting, not the option
printf '[Fill]\nCreateMounts=yes\n[Pool]\nPageSize=2M\nAmount=node%s=%s\n[Reserve]\nName=cm\nPageSize=2M\nAmount=4\nNode=%s\n' \
        "$first" "$((BASE + 8))" "$first" >"$WORK/cm.conf"
expect_rc 0 "$HPFILLD" --check-config --config "$WORK/cm.conf"
expect_in "$WORK/err" "cm.conf:6: no hugetlbfs mount for its pages yet: CreateMounts=yes mounts one at /dev/hugepages"
grep -q -- "--create-mounts" "$WORK/err" && fail "--check-config with CreateMounts=yes names the option: $(cat "$WORK/err")"
expect_rc 0 "$HPFILLD" --once --dry-run --config "$WORK/cm.conf" --pool "2M:node$first=$((BASE + 8))" --reserve "cm:2M:4@node$first"
expect_in "$WORK/err" "no hugetlbfs mount for its pages yet: CreateMounts=yes mounts one at /dev/hugepages"
! mountpoint -q /dev/hugepages || fail "--check-config with CreateMounts=yes mounted /dev/hugepages"
expect_rc 0 "$HPFILLD" --once --create-mounts --pool "2M:node$first=$((BASE + 8))" --reserve "cm:2M:4@node$first"
expect_in "$WORK/err" "Mounted hugetlbfs for 2M pages at /dev/hugepages \(CreateMounts=, --create-mounts\); it stays mounted"
line=$(awk '$2 == "/dev/hugepages"' /proc/self/mounts)
case $line in
"hugetlbfs /dev/hugepages hugetlbfs rw,nosuid,nodev,noexec,"*"pagesize=2M"*) ;;
*) fail "the mount made: '$line'" ;;
esac
[ "$(stat -c '%a %U' /dev/hugepages)" = "755 root" ] || fail "the mount's root: $(stat -c '%a %U' /dev/hugepages)"
[ -f /dev/hugepages/hpfilld/cm ] || fail "no reservation in the mount made"
# again: the mount is there, none is made over it
expect_rc 0 "$HPFILLD" --once --create-mounts --pool "2M:node$first=$((BASE + 8))" --reserve "cm:2M:4@node$first"
[ "$(awk '$2 == "/dev/hugepages"' /proc/self/mounts | wc -l)" = 1 ] || fail "a second mount: $(grep hugepages /proc/self/mounts)"
grep -q "Mounted hugetlbfs" "$WORK/err" && fail "mounted again: $(cat "$WORK/err")"
expect_rc 0 "$HPFILLD" --release cm
umount /dev/hugepages
# never over a mount of another kind
mount -t tmpfs -o size=1M,mode=0755 none /dev/hugepages
expect_rc 2 "$HPFILLD" --once --create-mounts --pool "2M:node$first=$((BASE + 8))" --reserve "cm:2M:4@node$first"
expect_in "$WORK/err" "CreateMounts=: /dev/hugepages is a mount point already, not of hugetlbfs for 2M pages: left alone"
[ "$(awk '$2 == "/dev/hugepages" { print $3 }' /proc/self/mounts)" = tmpfs ] || fail "the tmpfs was covered"
umount /dev/hugepages
echo "ok: --create-mounts mounts /dev/hugepages for 2M pages once, never over a mount, --dry-run only says so"

# mount(2) itself refused (tests/mountfail/mount-fail.c, as an LSM would refuse it): exit 2 (the
# reservation has no mount), said, nothing changed; the directory --create-mounts made for it
# removed again, one that was there before kept as it was
[ -f "${MOUNT_FAIL:-}" ] || fail "no MOUNT_FAIL (tests/mountfail/mount-fail.c, which tests/meson.build builds)"
mount_refused() { # SIZE PLACE WHAT
        local before
        before=$(snapshot)
        expect_rc 2 env LD_PRELOAD="$MOUNT_FAIL" "$HPFILLD" --once --create-mounts --pool "$1:node$first=1" \
                --reserve "cm:$1:1@node$first"
        expect_in "$WORK/err" "^hpfilld: --reserve cm:$1:1@node$first: CreateMounts=: cannot mount hugetlbfs for $1 pages at $2: Operation not permitted; $2 $3$"
        ! mountpoint -q "$2" || fail "$2 mounted with mount(2) refused"
        [ "$(snapshot)" = "$before" ] || fail "a run whose mount failed changed the pools"
}
ino=$(stat -c %i /dev/hugepages)
mount_refused 2M /dev/hugepages "was there before, left as it was"
[ "$(stat -c '%i %U %a' /dev/hugepages)" = "$ino root 755" ] || fail "/dev/hugepages, there before, not kept as it was"
if [ -n "$made_dir" ]; then
        rmdir /dev/hugepages
        mount_refused 2M /dev/hugepages "made for it, removed again"
        [ ! -e /dev/hugepages ] || fail "--create-mounts left /dev/hugepages, made for a mount that failed"
fi
if [ -d "$HP/hugepages-1048576kB" ] && [ ! -e /dev/hugepages1G ]; then
        EXTRA_CLEANUP="$EXTRA_CLEANUP; rmdir /dev/hugepages1G 2>/dev/null || true"
        mount_refused 1G /dev/hugepages1G "made for it, removed again"
        [ ! -e /dev/hugepages1G ] || fail "--create-mounts left /dev/hugepages1G, made for a mount that failed"
fi
echo "ok: --create-mounts whose mount(2) fails says so and leaves /dev as it was"
if [ -n "$made_dir" ] && [ -d /dev/hugepages ]; then rmdir /dev/hugepages; fi

# give-back: another consumer's 4 pages (an admin's echo) stay; a one-off adds 36 and two
# reservations; a workload holds 6 pages and a VM maps r2: r1 goes, r2 and its pages stay, the
# rest of what hpfilld added goes, free pages only (exit 3: 6 of its pages in use, as counted);
# once they let go, the rest (exit 0), down to the admin's 4
mount -t hugetlbfs -o pagesize=2M none "$MNT"
EXTRA_CLEANUP="exec 7>&- 8<&- 2>/dev/null; [ -z \"\${VM_PID:-}\" ] || kill \"\$VM_PID\" 2>/dev/null; rm -rf '$MNT/hpfilld'; umount '$MNT'"
pool2m_set 0
# the one-off runs above hold pages still, as far as the state knows: given back, so that the
# state sees the pool without them before the admin adds hers (pages that come and go between two
# commands are not seen: 8 of the runs' gone, then the admin's 10 added, would look like 2 added)
expect_rc 0 "$HPFILLD" give-back
[ "$(node_nr "$first" 2048)" = "$BASE" ] || fail "give-back before the admin's pages left $(node_nr "$first" 2048), not $BASE"
echo $((BASE + 4)) >"$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages"
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$((BASE + 40))" --reserve "r1:2M:4@node$first" --reserve "r2:2M:4@node$first"
[ "$(node_nr "$first" 2048)" = $((BASE + 40)) ] || fail "the fill: $(node_nr "$first" 2048)"
# status --kubelet: the reservations' 8 pages, on the node the fill put them, for the kubelet
"$HPFILLD" status --kubelet >"$WORK/kubelet"
expect_in "$WORK/kubelet" "^--system-reserved=hugepages-2Mi=16Mi$"
expect_in "$WORK/kubelet" "^--reserved-memory=$first:hugepages-2Mi=16Mi$"
expect_in "$WORK/kubelet" "^  - numaNode: $first$"
"$HPFILLD" status --json >"$WORK/status.json"
python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["kubelet"]; sys.exit(k["system_reserved"] != {"hugepages-2Mi": "16Mi"} or k["reserved_memory"] != [{"numaNode": int(sys.argv[2]), "limits": {"hugepages-2Mi": "16Mi"}}])' \
        "$WORK/status.json" "$first" || fail "status --json's kubelet: $(cat "$WORK/status.json")"
echo "ok: status --kubelet and --json's kubelet give the reservations' pages"
hold_pages 6
mkfifo "$WORK/vm.in" "$WORK/vm.out"
python3 "$SOURCE_ROOT/tests/root/map-files.py" "$MNT/hpfilld/r2" <"$WORK/vm.in" >"$WORK/vm.out" &
VM_PID=$!
exec 7>"$WORK/vm.in" 8<"$WORK/vm.out"
read -r line <&8
[ "$line" = mapped ] || fail "the VM could not map r2: $line"
expect_rc 3 "$HPFILLD" give-back
expect_in "$WORK/out" "^r1: removed $MNT/hpfilld/r1$"
expect_in "$WORK/out" "^r2: kept, in use \(or cannot be told\): $MNT/hpfilld/r2$"
expect_in "$WORK/out" "^2M pool of node$first: 30 pages given back \($((BASE + 40)) -> $((BASE + 10))\); 6 more of hpfilld's are in use or reserved: kept$"
[ ! -e "$MNT/hpfilld/r1" ] && [ -f "$MNT/hpfilld/r2" ] || fail "r1 and r2 after give-back: $(ls "$MNT/hpfilld")"
[ "$(node_nr "$first" 2048)" = $((BASE + 10)) ] || fail "give-back left $(node_nr "$first" 2048), not $((BASE + 10))"
[ "$(cat $G/surplus_hugepages)" = 0 ] || fail "give-back made surplus pages: $(cat $G/surplus_hugepages)"
hold_release
echo >&7
read -r line <&8
[ "$line" = intact ] || fail "the VM's r2: $line"
exec 7>&- 8<&-
wait "$VM_PID" || true
VM_PID=
expect_rc 0 "$HPFILLD" give-back
expect_in "$WORK/out" "^r2: removed $MNT/hpfilld/r2$"
expect_in "$WORK/out" "^2M pool of node$first: 6 pages given back \($((BASE + 10)) -> $((BASE + 4))\)$"
[ "$(node_nr "$first" 2048)" = $((BASE + 4)) ] || fail "the second give-back left $(node_nr "$first" 2048), not the admin's 4 (and the $BASE of others)"
expect_rc 0 "$HPFILLD" give-back
expect_in "$WORK/err" "Nothing to give back"
echo "ok: give-back: free pages and unmapped reservations of hpfilld's only, in one step"
echo PASS
