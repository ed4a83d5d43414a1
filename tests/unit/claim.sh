#!/bin/sh
# SPDX-License-Identifier: MIT
# hpfilld claim and unclaim without a daemon, on fake machines under --root: the drop-in each
# writes, the pools' targets with the claims summed per node, what unclaim gives back (free
# pages only, never another claim's or the [Pool]'s), exit 3 when short, exit 2 (nothing
# changed) on a bad claim. tests/unit/claim-daemon.py is the same through the daemon.
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
# free N0 N1: the pages free on each node (the fake kernel leaves free_hugepages as written)
free() {
        echo "$1" >"$(pool 0)/free_hugepages"
        echo "$2" >"$(pool 1)/free_hugepages"
}
d=$m/run/hpfilld.conf.d

fake_machine "$m" 2 4096 2048
mkdir -p "$m/etc"
printf '[Fill]\nMetricsFile=%s\n[Pool]\nPageSize=2M\nAmount=node0=10,node1=10\n' "$work/metrics.prom" >"$m/etc/hpfilld.conf"

# a claim per node and one spread: each adds to the [Pool]'s target of its nodes
run 0 claim vm1 --pool 2M:node0=64M,node1=32M
pools 42 26
[ -f "$d/50-claim-vm1.conf" ] || bad "no $d/50-claim-vm1.conf"
[ "$(stat -c %a "$d" "$d/50-claim-vm1.conf" | tr '\n' ' ')" = "755 644 " ] ||
        bad "modes $(stat -c %a "$d" "$d/50-claim-vm1.conf")"
grep -qx 'Amount=node0=64M,node1=32M' "$d/50-claim-vm1.conf" || bad "the file: $(cat "$d/50-claim-vm1.conf")"
ls -A "$d" | grep -q tmp && bad "a temp file left in $d: $(ls -A "$d")"
run 0 claim vm2 --pool 2M:10
pools 47 31
# status, in every format, lists the claims of the last fill's plan: name, size, pages per
# node, the file; the metrics file (MetricsFile=) as well
run 0 status
grep -Eq "^vm1 +2M +node0 +32 +0\.06 $m/run/hpfilld.conf.d/50-claim-vm1.conf\$" "$work/out" || bad "status: $(cat "$work/out")"
grep -Eq "^vm2 +2M +node1 +5 " "$work/out" || bad "status: $(cat "$work/out")"
run 0 status --json
python3 - "$work/out" "$m" <<'PY' || bad "status --json: $(cat "$work/out")"
import json, sys
c = json.load(open(sys.argv[1]))["claims"]
got = sorted((x["name"], x["page_size"], x["node"], x["pages"]) for x in c)
assert got == [("vm1", 2 << 20, 0, 32), ("vm1", 2 << 20, 1, 16), ("vm2", 2 << 20, 0, 5), ("vm2", 2 << 20, 1, 5)], got
assert c[0]["file"] == sys.argv[2] + "/run/hpfilld.conf.d/50-claim-vm1.conf", c[0]
PY
run 0 status --format=prometheus
grep -qxF "hpfilld_claim_pages{claim=\"vm1\",size=\"2M\",node=\"1\",file=\"$m/run/hpfilld.conf.d/50-claim-vm1.conf\"} 16" \
        "$work/out" || bad "prometheus: $(grep claim "$work/out")"
grep -q '^hpfilld_claim_pages{claim="vm2",size="2M",node="0",' "$work/metrics.prom" ||
        bad "MetricsFile=: $(grep claim "$work/metrics.prom")"
# the kubelet's reservations count the claims' pages per node (vm1 32 + vm2 5, vm1 16 + vm2 5)
run 0 status --kubelet
grep -qx -- "--reserved-memory=0:hugepages-2Mi=74Mi" "$work/out" || bad "status --kubelet: $(cat "$work/out")"
grep -qx -- "--reserved-memory=1:hugepages-2Mi=42Mi" "$work/out" || bad "status --kubelet: $(cat "$work/out")"
grep -qx -- "--system-reserved=hugepages-2Mi=116Mi" "$work/out" || bad "status --kubelet: $(cat "$work/out")"
run 0 status --json
python3 - "$work/out" <<'PY' || bad "status --json's kubelet: $(cat "$work/out")"
import json, sys
k = json.load(open(sys.argv[1]))["kubelet"]
assert k["system_reserved"] == {"hugepages-2Mi": "116Mi"}, k
assert k["reserved_memory"] == [{"numaNode": 0, "limits": {"hugepages-2Mi": "74Mi"}},
                                {"numaNode": 1, "limits": {"hugepages-2Mi": "42Mi"}}], k
assert k["unplaced_bytes"] == 0, k
PY
python3 "$SOURCE_ROOT/tests/json-validate.py" "$SOURCE_ROOT/doc/hpfilld-json.schema.json" status "$work/out" >/dev/null ||
        bad "status --json with claims: not a valid status document"
# the same again: a no-op success; --check-config sees the claims as the daemon would
run 0 claim vm2 --pool 2M:10
pools 47 31
grep -q 'node0: 47 -> 47 (target 47)' "$work/out" || bad "repeat: $(cat "$work/out")"

# unclaim: node0 has 27 pages in use, node1 none. vm1's 32+16 go back, free pages only: node0
# keeps 27 (the [Pool]'s 10 and vm2's 5 are 15, but only 20 of its 47 are free)
free 20 31
run 0 unclaim vm1
pools 27 15
[ -e "$d/50-claim-vm1.conf" ] && bad "unclaim left $d/50-claim-vm1.conf"
# what is left is the [Pool]'s and vm2's: another unclaim of vm1 gives nothing back
free 27 15
run 0 unclaim vm1
pools 27 15
grep -q 'no such claim' "$work/err" || bad "unclaim of no claim: $(cat "$work/err")"
# a claim made smaller gives back its difference only (5 a node to 2: 3), never below the
# others' targets (node1: the [Pool]'s 10 and vm2's 2). node0's 12 pages that vm1 had in use
# at its unclaim, free since, are nobody's claim: they stay (give-back's, or the admin's)
run 0 claim vm2 --pool 2M:4
pools 24 12
free 24 12
run 0 unclaim vm2
pools 22 10
# the admin gives 2 of those back by hand (node0 at 20, as the rest of this test has it)
echo 20 >"$(pool 0)/nr_hugepages"
run 0 status
grep -qx "Claims: none" "$work/out" || bad "status after the last unclaim: $(cat "$work/out")"

# short: the kernel grants node1 at most 12 pages. Exit 3, the claim stays, stderr names it
fake_grant "$m" 1 2048 12
run 3 claim big --pool 2M:node1=8
pools 20 12
[ -f "$d/50-claim-big.conf" ] || bad "a short claim's file is gone"
grep -q 'claim big: short of pages' "$work/err" || bad "short: $(cat "$work/err")"
rm "$(pool 1)/nr_hugepages.fake-max"
# the admin adds 3 pages by hand: unclaim gives back the 2 the claim got, not the admin's (its
# record, run/hpfilld/claim.big, counts what its fills added)
grep -qx "2097152 1 2 12" "$m/run/hpfilld/claim.big" || bad "claim.big: $(cat "$m/run/hpfilld/claim.big")"
echo 15 >"$(pool 1)/nr_hugepages"
free 0 15
run 0 unclaim big
pools 20 13
[ -e "$m/run/hpfilld/claim.big" ] && bad "unclaim left the record: $(cat "$m/run/hpfilld/claim.big")"
echo 10 >"$(pool 1)/nr_hugepages"

# bad claims: exit 2, nothing written, the pools as they were
for args in "vm3 --pool 2M:node7=2" "vm3 --pool 2M:node0=5000M" "vm3 --pool 2M:0" "vm3 --pool 16M:2" \
        "vm3 --pool 2M:1 --pool 2M:2" "../x --pool 2M:1" "vm3" "vm3 vm4 --pool 2M:1" "vm3 --pool 2M:1G,x"; do
        # shellcheck disable=SC2086
        run 2 claim $args
        pools 20 10
        [ "$(ls -A "$d")" = "" ] || bad "claim $args left $(ls -A "$d")"
done
run 2 claim vm3 --pool 2M:1 --pool 2M:2
grep -q -- "--pool '2M:2': a second --pool for the page size of '2M:1'" "$work/err" ||
        bad "two --pool of one page size: $(cat "$work/err")"
run 2 claim vm3 --pool 2M:node7=2
grep -q 'node7 does not exist' "$work/err" || bad "no reason: $(cat "$work/err")"
grep -q 'claim vm3: refused' "$work/err" || bad "no refusal naming the claim: $(cat "$work/err")"
# a changed claim that is refused leaves the old one in place, its pages too
run 0 claim vm3 --pool 2M:2
pools 20 11
run 2 claim vm3 --pool 2M:node9=2
grep -qx 'Amount=2' "$d/50-claim-vm3.conf" || bad "the refused change replaced the file: $(cat "$d/50-claim-vm3.conf")"
pools 20 11
# the claim's name in another file: not this command's to change
printf '[Claim]\nName=vm4\nPageSize=2M\nAmount=2\n' >"$m/etc/hpfilld.conf.d.vm4"
mkdir -p "$m/etc/hpfilld.conf.d" && mv "$m/etc/hpfilld.conf.d.vm4" "$m/etc/hpfilld.conf.d/vm4.conf"
run 2 claim vm4 --pool 2M:4
grep -q 'said in .*vm4.conf' "$work/err" || bad "another file's claim: $(cat "$work/err")"
[ -e "$d/50-claim-vm4.conf" ] && bad "claim vm4 left its file"
rm "$m/etc/hpfilld.conf.d/vm4.conf"
# a bad configuration file elsewhere: exit 2, nothing written
printf '[Pool]\nPageSize=2M\nAmount=lots\n' >"$m/etc/hpfilld.conf.d/bad.conf"
run 2 claim vm5 --pool 2M:2
[ -e "$d/50-claim-vm5.conf" ] && bad "claim vm5 with a bad file elsewhere left its file"
rm "$m/etc/hpfilld.conf.d/bad.conf"
# a link in place of the claim's directory is not followed
rm -rf "$d"
mkdir "$work/elsewhere"
ln -s "$work/elsewhere" "$d"
run 1 claim vm6 --pool 2M:2
[ "$(ls -A "$work/elsewhere")" = "" ] || bad "written through a link: $(ls -A "$work/elsewhere")"
rm "$d"
# a directory others can write, or its group: refused, nothing written in it
for mode in 0777 0775 0757; do
        mkdir "$d"
        chmod "$mode" "$d"
        run 1 claim vm6 --pool 2M:2
        grep -q "run/hpfilld.conf.d is not root's, or others can write it: refused" "$work/err" ||
                bad "claim in a directory of mode $mode: $(cat "$work/err")"
        [ "$(ls -A "$d")" = "" ] || bad "written into a directory of mode $mode: $(ls -A "$d")"
        rmdir "$d"
done

# a claim's file made bad by hand: unclaim removes it all the same (a release hook must be
# able to), gives nothing back, and says so
mkdir -p "$d"
printf '[Claim]\nName=vm8\nPageSize=2M\nAmount=lots\n' >"$d/50-claim-vm8.conf"
run 0 unclaim vm8
[ -e "$d/50-claim-vm8.conf" ] && bad "unclaim left a bad claim's file"
grep -q "removing it all the same" "$work/err" || bad "no word of the bad file: $(cat "$work/err")"
pools 20 11

# a one-off --once --pool run leaves the files' claims out: its pools are the plan. The
# daemon's and --once's own runs add them.
mkdir -p "$d"
printf '[Claim]\nName=vm7\nPageSize=2M\nAmount=node0=40\n' >"$d/50-claim-vm7.conf"
run 0 --once --pool 2M:node1=11
pools 20 11
run 0 --once
pools 50 11
passed
