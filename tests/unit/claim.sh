#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck disable=SC3043
# (local: dash and bash both have it)
# hpfilld claim and unclaim without a daemon, on a fake machine under --root whose fake kernel
# keeps the pools as the kernel does (fake-pools): a claim is an owner in run/hpfilld/state (no
# file of its own), its pages on top of whatever the pool holds (others' free pages never count
# for it); status shows it in every format, and the metrics file; a claim made smaller gives
# back its excess; unclaim gives back its free pages, and the next command those in use once
# they are free; pages that leave the pool are taken from the configuration's before a claim's,
# the newest claim's first; exit 3 when short (the claim stays), exit 2 on a bad claim with
# nothing changed (the state and the pools byte for byte); a claim's name is only a name.
# tests/unit/claim-daemon.py is the same beside the daemon.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
m=$work/m
pool() { echo "$m/sys/devices/system/node/node$1/hugepages/hugepages-2048kB"; }
nr() { cat "$(pool "$1")/nr_hugepages"; }
# pools N0 N1: node0 and node1 hold N0 and N1 2M pages
pools() {
        [ "$(nr 0) $(nr 1)" = "$1 $2" ] || bad "pools $(nr 0) $(nr 1), expected $1 $2 ($(cat "$work/out" "$work/err"))"
}
# shares OWNER S0 S1: OWNER holds and wants S0 of node0's 2M pool and S1 of node1's (HELD/WANT, "-": nothing)
shares() {
        local got
        got="$(state_share "$m" "$1" 2048 0) $(state_share "$m" "$1" 2048 1)"
        [ "$got" = "$2 $3" ] || bad "$1: $got in the state, expected $2 $3: $(cat "$m/run/hpfilld/state")"
}
# owner NAME WANT: the state's word on owner NAME (state_owner)
owner() {
        [ "$(state_owner "$m" "$1")" = "$2" ] || bad "owner $1: '$(state_owner "$m" "$1")', expected '$2'"
}
has() { grep -qx -- "$2" "$work/$1" || bad "no line '$2' in $1: $(cat "$work/$1")"; }
# snapshot, then unchanged WHAT: run/hpfilld (but the lock's holder line), the metrics file and
# every pool counter, byte for byte, as they were
everything() {
        (cd "$m" && grep -r '' run sys/devices/system/node sys/kernel/mm/hugepages | grep -v '^run/hpfilld/host.lock:' | sort)
        cat "$work/metrics.prom"
}
snapshot() { everything >"$work/before"; }
unchanged() {
        everything | cmp -s - "$work/before" ||
                bad "$1 changed something: $(everything | diff "$work/before" - | head -n 20)"
}
# the files of run/hpfilld: the state, the lock and the last fill's record, no other
files() {
        local extra
        extra=$(rundir_extra "$m" state host.lock fill-record)
        [ -z "$extra" ] || bad "$1: files in run/hpfilld: $extra"
        [ ! -e "$m/run/hpfilld.conf.d" ] || bad "$1: a drop-in written: $(ls -A "$m/run/hpfilld.conf.d")"
}

fake_machine "$m" 2 4096 2048
fake_pools "$m"
mkdir -p "$m/etc"
printf '[Fill]\nMetricsFile=%s\n[Pool]\nPageSize=2M\nAmount=node0=10,node1=10\n' "$work/metrics.prom" >"$m/etc/hpfilld.conf"
# the administrator's 6 pages on node0 (an echo): nobody's in the state
fake_write "$(pool 0)/nr_hugepages" 6
pools 6 0

# a claim per node: its pages on top of the pool (the admin's 6 free pages are not the
# claim's); a claim does not fill the configuration's [Pool]
run 0 claim vm1 --pool 2M:node0=64M,node1=32M
pools 38 16
shares claim:vm1 32/32 16/16
shares config - -
owner claim:vm1 "active 2M:node0=64M,node1=32M"
files "claim vm1"
# one spread over the nodes
run 0 claim vm2 --pool 2M:10
pools 43 21
shares claim:vm2 5/5 5/5
shares claim:vm1 32/32 16/16
# status, in every format, lists the claims: name, size, pages per node; a pool's target is
# the claims' (the configuration has asked for nothing yet); the metrics file (MetricsFile=)
run 0 status
grep -Eq "^vm1 +2M +node0 +32 +0\.06 +hpfilld claim\$" "$work/out" || bad "status: $(cat "$work/out")"
grep -Eq "^vm2 +2M +node1 +5 " "$work/out" || bad "status: $(cat "$work/out")"
grep -Eq "^2M +node0 +37 +43 " "$work/out" || bad "status's target of node0: $(cat "$work/out")"
run 0 status --json
python3 - "$work/out" <<'PY' || bad "status --json: $(cat "$work/out")"
import json, sys
s = json.load(open(sys.argv[1]))
got = sorted((x["name"], x["page_size"], x["node"], x["pages"]) for x in s["claims"])
assert got == [("vm1", 2 << 20, 0, 32), ("vm1", 2 << 20, 1, 16), ("vm2", 2 << 20, 0, 5), ("vm2", 2 << 20, 1, 5)], got
assert [n["target"] for n in s["pools"][0]["nodes"]] == [37, 21], s["pools"]
PY
run 0 status --format=prometheus
has out 'hpfilld_claim_pages{claim="vm1",size="2M",node="1",file="hpfilld claim"} 16'
has out 'hpfilld_pool_target_pages{size="2M",node="0"} 37'
grep -q '^hpfilld_claim_pages{claim="vm2",size="2M",node="0",' "$work/metrics.prom" ||
        bad "MetricsFile=: $(grep claim "$work/metrics.prom")"
# the kubelet's reservations count the claims' pages per node (vm1 32 + vm2 5, vm1 16 + vm2 5)
run 0 status --kubelet
has out "--reserved-memory=0:hugepages-2Mi=74Mi"
has out "--reserved-memory=1:hugepages-2Mi=42Mi"
has out "--system-reserved=hugepages-2Mi=116Mi"
run 0 status --json
python3 - "$work/out" <<'PY' || bad "status --json's kubelet: $(cat "$work/out")"
import json, sys
k = json.load(open(sys.argv[1]))["kubelet"]
assert k["system_reserved"] == {"hugepages-2Mi": "116Mi"}, k
assert k["reserved_memory"] == [{"numaNode": 0, "limits": {"hugepages-2Mi": "74Mi"}},
                                {"numaNode": 1, "limits": {"hugepages-2Mi": "42Mi"}}], k
PY

# the configuration's fill: its [Pool]'s 10 count every page no claim holds (on node0 the
# admin's 6: it adds 4), the claims on top
run 0 --once
pools 47 31
shares config 4/10 10/10
shares claim:vm1 32/32 16/16
run 0 status
grep -Eq "^2M +node0 +47 +47 " "$work/out" || bad "status's target after the configuration's fill: $(cat "$work/out")"
# the same claim again: a no-op success
run 0 claim vm2 --pool 2M:10
pools 47 31
grep -q 'node0: 47 -> 47 (target 47)' "$work/out" || bad "repeat: $(cat "$work/out")"
# made smaller: its own excess given back (5 a node to 2), nobody else's
run 0 claim vm2 --pool 2M:4
pools 44 28
shares claim:vm2 2/2 2/2
shares claim:vm1 32/32 16/16
shares config 4/10 10/10
owner claim:vm2 "active 2M:4"

# the admin takes 13 of node1's 28: taken from the configuration's 10 first, then from the
# claims, the newest first (vm2's 2, then 1 of vm1's), once, by the next command that takes
# the host lock (status only reads: it charges nobody)
fake_write "$(pool 1)/nr_hugepages" 15
run 0 status
shares config 4/10 10/10
# a claim's fill adds only its own lack: vm2's 2, not the configuration's nor vm1's
run 0 claim vm2 --pool 2M:4
pools 44 17
shares config 4/10 0/10
shares claim:vm2 2/2 2/2
shares claim:vm1 32/32 15/16
# a one-off --once --pool counts every page no claim holds and refills no claim: node1 has
# none of those, so it adds 3
run 0 --once --pool 2M:node1=3
pools 44 20
shares claim:vm1 32/32 15/16
shares once - 3/3
# the configuration's fill adds what it and the claims lack (the one-off's 3 count for it)
run 0 --once
pools 44 28
shares config 4/10 7/10
shares claim:vm1 32/32 16/16

# unclaim while node0 has 40 of its 44 pages in use: vm1's free pages go back now (node0's 4,
# node1's 16), said pool by pool; its 28 in use stay the gone claim's
fake_in_use "$m" 0 2048 40
run 0 unclaim vm1
pools 40 12
has out "unclaim vm1: 2M pool of node0: 4 pages given back (44 -> 40), the rest in use"
has out "unclaim vm1: 2M pool of node1: 16 pages given back (28 -> 12)"
grep -q "unclaim vm1: 28 of its pages are in use" "$work/err" || bad "unclaim with pages in use: $(cat "$work/err")"
owner claim:vm1 "gone 2M:node0=64M,node1=32M"
shares claim:vm1 28/0 -
run 0 status
grep -q "^vm1 " "$work/out" && bad "status lists a claim given back: $(cat "$work/out")"
# a command while they are in use gives none back, nor anybody else's
run 0 claim vm2 --pool 2M:4
pools 40 12
shares claim:vm1 28/0 -
# free again: the next command that takes the host lock gives them back
fake_in_use "$m" 0 2048 0
run 0 claim vm2 --pool 2M:4
pools 12 12
owner claim:vm1 -
shares config 4/10 7/10
shares claim:vm2 2/2 2/2
# no such claim (any more): exit 0, said, nothing changed
snapshot
run 0 unclaim vm1
grep -q 'unclaim vm1: no such claim' "$work/err" || bad "unclaim of no claim: $(cat "$work/err")"
unchanged "unclaim of no such claim"

# short: the kernel grants node1 2 pages more. Exit 3, the claim stays (status shows what it
# asks), stderr names it
fake_grant "$m" 1 2048 14
run 3 claim big --pool 2M:node1=8
pools 12 14
shares claim:big - 2/8
grep -q 'claim big: short of pages' "$work/err" || bad "short: $(cat "$work/err")"
run 0 status
grep -Eq "^big +2M +node1 +8 " "$work/out" || bad "status of a short claim: $(cat "$work/out")"
rm "$(pool 1)/nr_hugepages.fake-max"
# the configuration's fill adds what the claim lacks
run 0 --once
pools 12 20
shares claim:big - 8/8
# the admin adds 3 pages by hand: unclaim gives back the claim's 8, not the admin's
fake_write "$(pool 1)/nr_hugepages" 23
run 0 unclaim big
pools 12 15
has out "unclaim big: 2M pool of node1: 8 pages given back (23 -> 15)"
owner claim:big -

# bad claims: exit 2, the state, the pools and the metrics as they were, byte for byte
run 0 claim vm3 --pool 2M:2
pools 13 16
snapshot
for args in "vm3 --pool 2M:node7=2" "vm3 --pool 2M:node0=5000M" "vm3 --pool 2M:0" "vm3 --pool 16M:2" \
        "vm3 --pool 1G:2" "vm3 --pool 2M:1 --pool 2M:2" "vm3 --pool 2M:1G,x" "vm9 --pool 2M:node7=2" \
        "vm9 --pool 2M:node0=5000M" "../x --pool 2M:1" "..x --pool 2M:1" "a/b --pool 2M:1" "vm3" \
        "vm3 vm4 --pool 2M:1"; do
        # shellcheck disable=SC2086
        run 2 claim $args
        unchanged "claim $args"
done
run 2 claim vm3 --pool 2M:1 --pool 2M:2
grep -q -- "--pool '2M:2': a second --pool for the page size of '2M:1'" "$work/err" ||
        bad "two --pool of one page size: $(cat "$work/err")"
run 2 claim vm3 --pool 2M:node7=2
grep -q 'claim vm3: .*node7 does not exist; nothing changed' "$work/err" || bad "a node that is not: $(cat "$work/err")"
run 2 claim vm3 --pool 1G:2
grep -q 'claim vm3: 1G:2: this kernel offers no pages of that size; nothing changed' "$work/err" ||
        bad "a page size not offered: $(cat "$work/err")"
run 2 claim vm9 --pool 2M:node0=5000M
grep -q 'claim vm9: refused; nothing changed' "$work/err" || bad "over the budget: $(cat "$work/err")"
owner claim:vm3 "active 2M:2"
owner claim:vm9 -
# a bad configuration file (its [Fill] settings are the claim's fill's): exit 2, nothing changed
mkdir -p "$m/etc/hpfilld.conf.d"
printf '[Pool]\nPageSize=2M\nAmount=lots\n' >"$m/etc/hpfilld.conf.d/bad.conf"
run 2 claim vm5 --pool 2M:2
grep -q "bad.conf:3" "$work/err" || bad "the bad file not named: $(cat "$work/err")"
unchanged "claim vm5 with a bad file elsewhere"
rm "$m/etc/hpfilld.conf.d/bad.conf"
# run/hpfilld others can write: refused (exit 1), nothing changed
chmod 0777 "$m/run/hpfilld"
run 1 claim vm6 --pool 2M:2
run 1 unclaim vm3
chmod 0755 "$m/run/hpfilld"
unchanged "claim vm6 beside a run/hpfilld others can write"

# a claim's name is a name: one named as a file of run/hpfilld (or of hpfilld before) is a
# claim as any other, and no file is made, replaced or removed for it
names="lock claim.lock state host.lock control fill-record ledger daemon.lock changed.x"
for name in $names; do
        run 0 claim "$name" --pool 2M:node1=1
        shares "claim:$name" - 1/1
done
pools 13 25
files "claims named as files"
run 0 status
grep -Eq "^claim\.lock +2M +node1 +1 " "$work/out" || bad "status of claim.lock: $(cat "$work/out")"
for name in $names; do
        run 0 unclaim "$name"
        has out "unclaim $name: 2M pool of node1: 1 page given back ($(nr 1 | awk '{ print $1 + 1 }') -> $(nr 1))"
        owner "claim:$name" -
done
pools 13 16
files "unclaims named as files"
shares claim:vm3 1/1 1/1

# units as a user writes them (MiB, KiB; a size's letters in any case): the state keeps them and
# every later command reads it
run 0 claim vmu --pool 2MiB:node0=4MIB,node1=2048KiB
owner claim:vmu "active 2MiB:node0=4MIB,node1=2048KiB"
run 0 status
run 0 unclaim vmu
owner claim:vmu -
echo "ok: a claim's units in capitals read back"

# at most 1000 claims: one more is refused (exit 2, nothing changed), so that no state line
# grows beyond what the parser reads; a state of 1000 claims reads and takes an unclaim
st=$m/run/hpfilld/state
{
        grep -E '^(hpfilld-state|boot) ' "$st"
        echo "seq 1000"
        i=1
        while [ $i -le 1000 ]; do echo "owner claim:c$i $i active 2M:1"; i=$((i + 1)); done
        echo end
} >"$work/many"
cp "$work/many" "$st"
run 2 claim one-more --pool 2M:1
grep -q "claim one-more: 1000 claims already, the most there may be" "$work/err" || bad "claim 1001: $(cat "$work/err")"
cmp -s "$work/many" "$st" || bad "a refused claim changed the state"
run 0 unclaim c1
owner claim:c1 -
echo "ok: the 1001st claim refused, the state of 1000 read"
passed
