#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck disable=SC3043
# (local: dash and bash both have it)
# The files the previous hpfilld kept, converted into run/hpfilld/state by the first command
# that takes the host lock (src/state/legacy.c): its ledgers (run/hpfilld/ledger, ledger-once,
# claim.NAME) become the pages of the owners config, once and claim:NAME, a pending unclaim
# (unclaim.NAME) a gone claim, a raised setting (changed.*) a setting put back, the drop-in the
# old `hpfilld claim NAME` wrote (run/hpfilld.conf.d/50-claim-NAME.conf) claim NAME; the old
# files are removed once the state holds them (a command killed before leaves them for the
# next, which converts them once), the lock files and daemon-config with them; an
# administrator's own drop-in is left alone. Ledgers of an earlier boot count no page.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
m=$work/m
r=$m/run/hpfilld
d=$m/run/hpfilld.conf.d
pool() { echo "$m/sys/devices/system/node/node$1/hugepages/hugepages-2048kB"; }
nr() { cat "$(pool "$1")/nr_hugepages"; }
oc=sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
boot=11111111-2222-3333-4444-555555555555
pools() {
        [ "$(nr 0) $(nr 1)" = "$1 $2" ] || bad "pools $(nr 0) $(nr 1), expected $1 $2 ($(cat "$work/out" "$work/err"))"
}
shares() {
        local got
        got="$(state_share "$m" "$1" 2048 0) $(state_share "$m" "$1" 2048 1)"
        [ "$got" = "$2 $3" ] || bad "$1: $got in the state, expected $2 $3: $(cat "$r/state")"
}
owner() {
        [ "$(state_owner "$m" "$1")" = "$2" ] || bad "owner $1: '$(state_owner "$m" "$1")', expected '$2': $(cat "$r/state")"
}
said() { grep -qF -- "$1" "$work/err" || bad "not said: '$1': $(cat "$work/err")"; }

# machine BOOT: a machine of this boot, with what the previous hpfilld left on it, of boot BOOT:
# node0 holds 40 pages, 12 of others' and 28 it added: 10 for the configuration, 6 for one-off
# runs, 8 for claim vm1 and 4 for claim vm2, given back by an unclaim killed before it gave
# them back; a fill killed with nr_overcommit_hugepages raised from 0 to 5
machine() {
        fake_machine "$m" 2 4096 2048
        fake_pools "$m"
        mkdir -p "$m/etc" "$m/proc/sys/kernel/random" "$r" "$d"
        echo "$boot" >"$m/proc/sys/kernel/random/boot_id"
        printf '[Pool]\nPageSize=2M\nAmount=node0=10\n' >"$m/etc/hpfilld.conf"
        fake_write "$(pool 0)/nr_hugepages" 40
        fake_write "$m/$oc" 5
        printf 'boot %s\n2097152 0 10 40\n' "$1" >"$r/ledger"
        printf 'boot %s\n2097152 0 6 40\n' "$1" >"$r/ledger-once"
        printf 'boot %s\n2097152 0 8 40\n' "$1" >"$r/claim.vm1"
        printf 'boot %s\n2097152 0 4 40\n' "$1" >"$r/claim.vm2"
        : >"$r/unclaim.vm2"
        echo "path=$oc found=0 set=5 pid=123 start=1" >"$r/changed.hugepages-2048kB.nr_overcommit_hugepages"
        printf 'Config=/etc/hpfilld.conf\n' >"$r/daemon-config"
        : >"$r/daemon.lock"
        : >"$r/claim.lock"
        printf "# Written by 'hpfilld claim vm1'; hpfilld unclaim vm1 removes it\n[Claim]\nName=vm1\nPageSize=2M\nAmount=node0=8\n" \
                >"$d/50-claim-vm1.conf"
        # the administrator's own, in the same place and of the same form: the configuration's
        printf '[Claim]\nName=vm9\nPageSize=2M\nAmount=node1=2\n' >"$d/50-claim-vm9.conf"
        cp "$d/50-claim-vm9.conf" "$work/vm9.conf"
}
old_files="ledger ledger-once claim.vm1 claim.vm2 unclaim.vm2 changed.hugepages-2048kB.nr_overcommit_hugepages daemon-config daemon.lock claim.lock"

# a command that takes the host lock (here an unclaim of no claim) converts them. 38 of node0's
# pages are in use: the gone claim vm2 gives back the 2 free ones now, keeps the 2 in use
machine "$boot"
fake_in_use "$m" 0 2048 38
run 0 unclaim nosuch
pools 38 0
shares config 10/0 -
shares once 6/0 -
shares claim:vm1 8/8 -
owner claim:vm1 "active 2M:node0=8"
shares claim:vm2 2/0 -
owner claim:vm2 gone
[ "$(cat "$m/$oc")" = 0 ] || bad "nr_overcommit_hugepages not put back: $(cat "$m/$oc")"
grep -q '^setting ' "$r/state" && bad "a setting left in the state: $(cat "$r/state")"
grep -qx "boot $boot" "$r/state" || bad "the state names no boot: $(cat "$r/state")"
for f in $old_files; do
        [ ! -e "$r/$f" ] || bad "run/hpfilld/$f not removed"
done
[ -z "$(rundir_extra "$m" state host.lock fill-record)" ] || bad "run/hpfilld holds $(ls -A "$r")"
[ ! -e "$d/50-claim-vm1.conf" ] || bad "the old claim's drop-in not removed"
cmp -s "$d/50-claim-vm9.conf" "$work/vm9.conf" || bad "the administrator's drop-in changed or removed"
said "Converted (and removed) $r/ledger"
said "Converted the claim of (and removed) $r/../hpfilld.conf.d/50-claim-vm1.conf"
said "$m/$oc put back to 0 (a command that ended had raised it to 5)"
echo "ok: the previous version's files converted and removed: $(tr '\n' ' ' <"$r/state")"

# then as any state: status lists the converted claim; the gone claim's pages go once free;
# the configuration's fill counts the one-off runs' and others' pages for its [Pool] (it adds
# nothing on node0) and fills the administrator's [Claim] (node1's 2)
run 0 status
grep -Eq "^vm1 +2M +node0 +8 " "$work/out" || bad "status of the converted claim: $(cat "$work/out")"
grep -q "^vm2 " "$work/out" && bad "status lists the gone claim: $(cat "$work/out")"
fake_in_use "$m" 0 2048 0
run 0 --once
pools 36 2
owner claim:vm2 -
shares config 10/10 2/2
shares claim:vm1 8/8 -
run 0 unclaim vm1
pools 28 2
# give-back: the configuration's and the one-off runs' (the converted ledgers')
run 0 give-back
pools 12 0
grep -qx "2M pool of node0: 16 pages given back (28 -> 12)" "$work/out" || bad "give-back: $(cat "$work/out")"
echo "ok: the converted state works as any other"

# killed at the state's first save (before it: the old files and no state), the next command
# converts them, once; killed just after it, the next command removes what is left of them (a
# drop-in of the old claim's left would be read as the configuration's [Claim]: its pages
# planned twice). The gone claim's pages are all free here: given back
for after in 0 1; do
        machine "$boot"
        rc=0
        HPFILLD_FAKE_KILL_STEP=1 HPFILLD_FAKE_KILL_AFTER=$after "$HPFILLD" unclaim nosuch --root "$m" \
                >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = 137 ] || bad "the command to kill (after=$after) exited $rc: $(cat "$work/err")"
        if [ "$after" = 0 ]; then
                [ ! -e "$r/state" ] || bad "a state saved by a command killed before its save: $(cat "$r/state")"
                for f in $old_files; do
                        [ -e "$r/$f" ] || bad "run/hpfilld/$f removed before the state that holds it was saved"
                done
                [ -e "$d/50-claim-vm1.conf" ] || bad "the old claim's drop-in removed before the state was saved"
        fi
        run 0 unclaim nosuch
        pools 36 0
        shares config 10/0 -
        shares once 6/0 -
        shares claim:vm1 8/8 -
        shares claim:vm2 - -
        [ "$(cat "$m/$oc")" = 0 ] || bad "nr_overcommit_hugepages not put back (after=$after): $(cat "$m/$oc")"
        for f in $old_files; do
                [ ! -e "$r/$f" ] || bad "run/hpfilld/$f left by a conversion killed (after=$after)"
        done
        [ ! -e "$d/50-claim-vm1.conf" ] || bad "the old claim's drop-in left by a conversion killed (after=$after)"
done
echo "ok: a conversion killed at its save is done by the next command, once"

# ledgers of an earlier boot (a /run that is not tmpfs keeps them): the pools of this boot hold
# none of their pages (here 40 the kernel's hugepages= made), which give-back leaves
machine 99999999-8888-7777-6666-555555555555
rm "$r/claim.vm1" "$r/claim.vm2" "$r/unclaim.vm2" "$d/50-claim-vm1.conf" "$d/50-claim-vm9.conf"
run 0 give-back
pools 40 0
shares config - -
shares once - -
[ ! -e "$r/ledger" ] && [ ! -e "$r/ledger-once" ] || bad "the earlier boot's ledgers left: $(ls -A "$r")"
echo "ok: ledgers of an earlier boot count no page"

# a ledger with a line that is none (a page size that is not one, garbage): none of its lines
# count, the good one before it included, and the state written reads back
machine "$boot"
rm "$r/claim.vm1" "$r/claim.vm2" "$r/unclaim.vm2" "$r/ledger-once" "$d/50-claim-vm1.conf" "$d/50-claim-vm9.conf"
printf 'boot %s\n2097152 0 10 40\n3000 0 1 1\n' "$boot" >"$r/ledger"
run 0 unclaim nosuch
said "Cannot convert $r/ledger"
shares config - -
run 0 --once --mode sysfs --pool 2M:node0=40
run 0 give-back
pools 40 0
echo "ok: a ledger with a bad line counts none of its pages, and the state stays readable"
passed
