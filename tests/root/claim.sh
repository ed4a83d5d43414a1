#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld claim and unclaim on the real kernel, without and with a running daemon (hpfilld(8),
# OWNERS): each claim adds its pages on top of whatever the pool holds (an admin's pages and the
# [Pool]'s count for none of it), by itself under the host lock, never through the daemon; the
# [Pool] counts the pages no claim holds; a claim made smaller gives back its own excess; unclaim
# gives back what the claim holds, free pages only (a workload's pages stay the gone claim's,
# given back once free by the next command), never another claim's or the [Pool]'s; give-back
# keeps the claims; a bad claim is exit 2 with nothing changed. In a mount namespace of its own:
# /run/hpfilld.conf.d and /run/hpfilld are the test's (tmpfs), so that no claim of this host is
# read or left, and the host's configuration files are masked (run under flock
# /tmp/hpfilld-host.lock, as the root suite is).
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"
[ -n "${IN_OWN_MOUNT_NS:-}" ] || { echo "SKIP: no mount namespace of its own (unshare)"; exit 77; }

# the host's configuration (every host with the package has /etc/hpfilld.conf) masked in this
# namespace, an empty file or directory over it: every claim's configuration is the test's own
: >"$WORK/empty.conf"
mkdir "$WORK/empty.d"
for f in /etc/hpfilld.conf /etc/hpfilld.conf.d /usr/lib/hpfilld.conf.d; do
        if [ -d "$f" ]; then
                mount --bind "$WORK/empty.d" "$f"
        elif [ -e "$f" ]; then
                mount --bind "$WORK/empty.conf" "$f"
        fi
done
for d in /run/hpfilld.conf.d /run/hpfilld; do
        if [ ! -d "$d" ]; then
                mkdir -m 0755 "$d"
                EXTRA_CLEANUP="${EXTRA_CLEANUP:+$EXTRA_CLEANUP; }rmdir '$d'"
        fi
        mount -t tmpfs -o mode=0755 hpfilld-test "$d"
done
EXTRA_CLEANUP="umount /run/hpfilld.conf.d; umount /run/hpfilld${EXTRA_CLEANUP:+; $EXTRA_CLEANUP}"
D=/run/hpfilld.conf.d
N=$NODES/node$first/hugepages/hugepages-2048kB
nr() { cat "$N/nr_hugepages"; }
# expect_nr N WHAT: node$first holds N pages above the ones others hold (BASE, lib.sh)
expect_nr() { [ "$(nr)" = $((BASE + $1)) ] || { cat "$WORK/out" "$WORK/err"; fail "$2: node$first holds $(nr) 2M pages, expected $BASE + $1"; }; }
# the claims the state holds, as hpfilld status --json lists them: "NAME SIZE NODE PAGES" a line
claims() {
        "$HPFILLD" status --json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["claims"]:
    print(c["name"], c["page_size"], c["node"], c["pages"])'
}
pool2m_set 0
# the admin's pages: 8 of node$first added by hand (nobody's), and a [Pool] of 8 there
echo $((BASE + 8)) >"$N/nr_hugepages"
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" $((BASE + 8)) >"$D/10-admin.conf"

# --- without a daemon: each claim on top of whatever the pool holds
expect_rc 0 "$HPFILLD" claim vm1 --pool "2M:node$first=16M"
expect_nr 16 "claim vm1 beside the admin's 8"
# the [Pool] counts every page no claim holds: the admin's 8 meet it, it adds none
expect_rc 0 "$HPFILLD" --once
expect_nr 16 "the configuration's fill beside claim vm1"
expect_rc 0 "$HPFILLD" claim vm2 --pool "2M:node$first=8"
expect_nr 24 "claim vm2"
# again, the same: nothing to do
expect_rc 0 "$HPFILLD" claim vm2 --pool "2M:node$first=8"
expect_nr 24 "claim vm2 again"
# smaller: its own excess given back (free pages only), then back up
expect_rc 0 "$HPFILLD" claim vm2 --pool "2M:node$first=4"
expect_nr 20 "claim vm2 made smaller"
expect_rc 0 "$HPFILLD" claim vm2 --pool "2M:node$first=8"
expect_nr 24 "claim vm2 made larger again"
claims >"$WORK/claims"
grep -qx "vm1 2097152 $first 8" "$WORK/claims" && grep -qx "vm2 2097152 $first 8" "$WORK/claims" ||
        { cat "$WORK/claims"; fail "status does not list vm1's and vm2's 8 pages"; }

# a bad claim: exit 2, no claim, the pools byte for byte as they were
snapshot >"$WORK/before"
expect_rc 2 "$HPFILLD" claim bad --pool "2M:node$first=100000G"
expect_in "$WORK/err" "claim bad: refused"
expect_rc 2 "$HPFILLD" claim bad --pool "2M:node4095=2"
expect_in "$WORK/err" "node4095 does not exist"
claims | grep -q "^bad " && fail "a refused claim is in the state: $(claims)"
snapshot >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || { diff "$WORK/before" "$WORK/after"; fail "a refused claim changed the pools"; }

# a workload holds 20 of the 24 pages: unclaim vm1 gives back only the 4 free ones; its other 4
# stay the gone claim's
hold_pages 20
expect_rc 0 "$HPFILLD" unclaim vm1
expect_in "$WORK/out" "^unclaim vm1: 2M pool of node$first: 4 pages given back \($((BASE + 24)) -> $((BASE + 20))\), the rest in use$"
expect_in "$WORK/err" "unclaim vm1: 4 of its pages are in use: they are given back when they are free"
expect_nr 20 "unclaim vm1 with 20 pages in use"
[ "$(cat "$N/surplus_hugepages")" = 0 ] || fail "unclaim made $(cat "$N/surplus_hugepages") pages in use surplus"
claims | grep -q "^vm1 " && fail "unclaim left the claim: $(claims)"
hold_release
# again: the gone claim's 4, free now, given back
expect_rc 0 "$HPFILLD" unclaim vm1
expect_in "$WORK/out" "^unclaim vm1: 2M pool of node$first: 4 pages given back \($((BASE + 20)) -> $((BASE + 16))\)$"
expect_nr 16 "unclaim vm1 again, its pages free"
# idempotent, for release hooks: no such claim is exit 0 with a notice
expect_rc 0 "$HPFILLD" unclaim vm1
expect_in "$WORK/err" "no such claim"
expect_nr 16 "unclaim of no claim"
# vm2's 8 go back; the admin's 8 stay
expect_rc 0 "$HPFILLD" unclaim vm2
expect_nr 8 "unclaim vm2"
# a workload's reserved pages (mapped, not touched: free, but counted in resv_hugepages) are
# in use too: unclaim vm5 gives back only the free pages nobody reserved
expect_rc 0 "$HPFILLD" claim vm5 --pool "2M:node$first=8"
expect_nr 16 "claim vm5"
mkdir "$WORK/hp"
mount -t hugetlbfs -o pagesize=2M hpfilld-test "$WORK/hp"
EXTRA_CLEANUP="umount -l '$WORK/hp' 2>/dev/null || true; $EXTRA_CLEANUP"
reserve_pages "$WORK/hp/resv" 14
expect_rc 0 "$HPFILLD" unclaim vm5
expect_nr 14 "unclaim vm5 with 14 pages reserved"
[ "$(cat "$N/surplus_hugepages")" = 0 ] || fail "unclaim made $(cat "$N/surplus_hugepages") reserved pages surplus"
reserve_release
umount "$WORK/hp"
# the gone claim's 6, free now, given back by the next command that takes the lock
expect_rc 0 "$HPFILLD" give-back
expect_nr 8 "give-back after vm5's reservation went"
pool2m_set 0

# --- with the daemon: a claim does not go through it; it adds its pages by itself, under the
# host lock, on top of the daemon's
daemon_until "2M pool: $((BASE + 8))/$((BASE + 8)) pages"
# the daemon that runs when the test ends ($DPID then)
EXTRA_CLEANUP="kill \$DPID 2>/dev/null; $EXTRA_CLEANUP"
expect_nr 8 "the daemon's first fill"
expect_rc 0 "$HPFILLD" claim vm3 --pool "2M:node$first=12" -v
expect_nr 20 "claim vm3 beside the daemon"
expect_rc 0 "$HPFILLD" claim vm4 --pool "2M:node$first=4" -v
expect_nr 24 "claim vm4 beside the daemon"
checkpoint daemon
snapshot >"$WORK/before"
expect_rc 2 "$HPFILLD" claim bad --pool "2M:node4095=2"
expect_in "$WORK/err" "node4095 does not exist"
snapshot >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || { diff "$WORK/before" "$WORK/after"; fail "a refused claim changed the pools"; }
# give-back refuses while the daemon runs, and changes nothing
expect_rc 1 "$HPFILLD" give-back
expect_in "$WORK/err" "The hpfilld daemon runs \(pid $DPID\): stop it first"
expect_nr 24 "give-back beside the daemon"
# a reload: the [Pool] counts the pages no claim holds, it adds none; the claims keep theirs
expect_rc 0 "$HPFILLD" reload
expect_nr 24 "a reload beside claims vm3 and vm4"
# a workload holds 22: unclaim vm3 gives back the 2 free pages only, never vm4's or the [Pool]'s
hold_pages 22
expect_rc 0 "$HPFILLD" unclaim vm3
expect_nr 22 "unclaim vm3 with 22 pages in use"
[ "$(cat "$N/surplus_hugepages")" = 0 ] || fail "unclaim made pages in use surplus"
hold_release
# vm4's 4, and the gone vm3's 10, free now
expect_rc 0 "$HPFILLD" unclaim vm4
expect_nr 8 "unclaim vm4"
daemon_stop
# the one request on its control socket: the reload
[ "$(grep -c "as asked on the control socket" "$WORK/derr.rest")" = 1 ] ||
        { cat "$WORK/derr.rest"; fail "the daemon was asked other than the reload: a claim went through it"; }

# --- a daemon that crashed (SIGKILL) is seen as ended: give-back gives back the configuration's
# pages and keeps the claim's (pages and claim)
pool2m_set 0
expect_rc 0 "$HPFILLD" give-back
daemon_until "2M pool: $((BASE + 8))/$((BASE + 8)) pages"
kill -KILL $DPID
wait $DPID || true
exec 5<&-
expect_rc 0 "$HPFILLD" claim vm5 --pool "2M:node$first=6"
expect_nr 14 "claim vm5 after the daemon crashed"
expect_rc 0 "$HPFILLD" give-back
expect_in "$WORK/out" "^2M pool of node$first: 8 pages given back \($((BASE + 14)) -> $((BASE + 6))\)$"
expect_in "$WORK/out" "^1 claim kept \(hpfilld unclaim NAME gives one back\): vm5$"
expect_nr 6 "give-back beside claim vm5"
claims | grep -qx "vm5 2097152 $first 6" || fail "give-back dropped the claim: $(claims)"
rm "$D/10-admin.conf"
expect_rc 0 "$HPFILLD" unclaim vm5
expect_nr 0 "unclaim vm5"
echo PASS
