#!/bin/bash
# SPDX-License-Identifier: MIT
# The admin's one-offs on this kernel: --pool and --reserve are the plan of the run (a
# configuration's [Pool] and [Reserve] are not used: here a file given with --config, as the
# suite never reads /etc), and --reserve's owner, group and mode. In a mount namespace of its
# own, on a hugetlbfs mount it makes.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

first=$(mem_nodes | cut -d' ' -f1)
G=$HP/hugepages-2048kB
MNT="$WORK/huge"
mkdir -p "$MNT"
mount -t hugetlbfs -o pagesize=2M none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
EXTRA_CLEANUP="rm -rf '$MNT/hpfilld'; umount '$MNT'"
pool2m_set 0

# a configuration whose [Reserve] this kernel cannot make (a node it lacks) and whose [Pool] is
# larger: a one-off --pool fills its own pool alone
printf '[Pool]\nPageSize=2M\nAmount=node%s=40\n[Reserve]\nName=cfg\nPageSize=2M\nAmount=4\nNode=4000\n' "$first" \
        >"$WORK/etc.conf"
expect_rc 2 "$HPFILLD" --once --config "$WORK/etc.conf"
expect_in "$WORK/err" "etc.conf:4: node4000 does not exist"
[ "$(pool2m_nr)" = 0 ] || fail "a refused configuration changed the pool: $(pool2m_nr)"
expect_rc 0 "$HPFILLD" --once --shrink --config "$WORK/etc.conf" --pool "2M:node$first=10"
expect_in "$WORK/out" "^Plan from the command line \(--pool, --reserve\): the configuration's pools and reservations are not used$"
[ "$(node_nr "$first" 2048)" = 10 ] || fail "--pool 2M:node$first=10 left $(node_nr "$first" 2048) pages"
[ ! -e "$MNT/hpfilld/cfg" ] || fail "the configuration's reservation was made"
echo "ok: --once --pool with a configuration that reserves: its pool alone"

# --reserve with owner, group and mode; the configuration's [Pool] (40 pages) is not used either
expect_rc 0 "$HPFILLD" --once --config "$WORK/etc.conf" --reserve "vm1:2M:4@node$first,owner=nobody,group=nogroup,mode=0640"
[ "$(stat -c '%a %U %G %s' "$MNT/hpfilld/vm1")" = "640 nobody nogroup $((4 << 21))" ] ||
        fail "vm1: $(stat -c '%a %U %G %s' "$MNT/hpfilld/vm1")"
[ "$(node_nr "$first" 2048)" -lt 40 ] || fail "--reserve alone filled the configuration's pool: $(node_nr "$first" 2048)"
expect_rc 0 "$HPFILLD" --release vm1
echo "ok: --reserve vm1:2M:4@node$first,owner=nobody,group=nogroup,mode=0640"
echo PASS
