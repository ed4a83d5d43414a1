#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld claim and unclaim on the real kernel, without and with a running daemon: each claim
# adds its pages on top of an admin's [Pool], unclaim gives back what the claim held, free pages
# only (a workload's pages stay: a smaller nr_hugepages would make them surplus), never another
# claim's or the [Pool]'s; a bad claim is exit 2 with nothing changed. In a mount namespace of
# its own: /run/hpfilld.conf.d and /run/hpfilld are the test's (tmpfs), so that no claim of
# this host is read or left, and the host's configuration files are masked (run under flock
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
pool2m_set 0
# the admin's pool: 8 pages of node$first, beside the pages others hold there
printf '[Pool]\nPageSize=2M\nAmount=node%s=%s\n' "$first" $((BASE + 8)) >"$D/10-admin.conf"

# --- without a daemon: each claim on top
expect_rc 0 "$HPFILLD" claim vm1 --pool "2M:node$first=16M"
expect_nr 16 "claim vm1"
expect_rc 0 "$HPFILLD" claim vm2 --pool "2M:node$first=8"
expect_nr 24 "claim vm2"
# again, the same: nothing to do
expect_rc 0 "$HPFILLD" claim vm2 --pool "2M:node$first=8"
expect_nr 24 "claim vm2 again"

# a bad claim: exit 2, no file, the pools byte for byte as they were
snapshot >"$WORK/before"
expect_rc 2 "$HPFILLD" claim bad --pool "2M:node$first=100000G"
expect_in "$WORK/err" "claim bad: refused"
expect_rc 2 "$HPFILLD" claim bad --pool "2M:node4095=2"
[ -e "$D/50-claim-bad.conf" ] && fail "a refused claim left its file"
snapshot >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || { diff "$WORK/before" "$WORK/after"; fail "a refused claim changed the pools"; }

# a workload holds 20 of the 24 pages: unclaim vm1 gives back only the 4 free ones
hold_pages 20
expect_rc 0 "$HPFILLD" unclaim vm1
expect_nr 20 "unclaim vm1 with 20 pages in use"
[ "$(cat "$N/surplus_hugepages")" = 0 ] || fail "unclaim made $(cat "$N/surplus_hugepages") pages in use surplus"
[ -e "$D/50-claim-vm1.conf" ] && fail "unclaim left the file"
hold_release
# idempotent, for release hooks: no such claim is exit 0 with a notice
expect_rc 0 "$HPFILLD" unclaim vm1
expect_in "$WORK/err" "no such claim"
expect_nr 20 "unclaim of no claim"
# vm2's 8 go back; the [Pool]'s 8 stay, and the 4 vm1 could not give back are nobody's claim now
expect_rc 0 "$HPFILLD" unclaim vm2
expect_nr 12 "unclaim vm2"
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
pool2m_set 0

# --- with the daemon: the command asks it and returns when its fill is done
daemon_until "2M pool: $((BASE + 8))/$((BASE + 8)) pages"
# the daemon that runs when the test ends ($DPID then)
EXTRA_CLEANUP="kill \$DPID 2>/dev/null; $EXTRA_CLEANUP"
expect_nr 8 "the daemon's first fill"
[ -S /run/hpfilld/control ] || fail "the daemon has no control socket"
expect_rc 0 "$HPFILLD" claim vm3 --pool "2M:node$first=12" -v
expect_in "$WORK/err" "through the daemon"
expect_nr 20 "claim vm3 through the daemon"
expect_rc 0 "$HPFILLD" claim vm4 --pool "2M:node$first=4" -v
expect_nr 24 "claim vm4 through the daemon"
checkpoint daemon
snapshot >"$WORK/before"
expect_rc 2 "$HPFILLD" claim bad --pool "2M:node4095=2"
expect_in "$WORK/err" "node4095 does not exist"
[ -e "$D/50-claim-bad.conf" ] && fail "a claim the daemon refused left its file"
snapshot >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || { diff "$WORK/before" "$WORK/after"; fail "a refused claim changed the pools"; }
# a workload holds 22: unclaim vm3 gives back the 2 free pages only, never vm4's or the [Pool]'s
hold_pages 22
expect_rc 0 "$HPFILLD" unclaim vm3
expect_nr 22 "unclaim vm3 through the daemon with 22 pages in use"
[ "$(cat "$N/surplus_hugepages")" = 0 ] || fail "unclaim made pages in use surplus"
hold_release
expect_rc 0 "$HPFILLD" unclaim vm4
expect_nr 18 "unclaim vm4 through the daemon"
daemon_stop
grep -c "as asked on the control socket" "$WORK/derr.rest" | grep -qx 6 ||
        { cat "$WORK/derr.rest"; fail "the daemon did not apply the 6 requests (the refused claim asks twice: its file, then the files put back)"; }

# --- a daemon that crashed (SIGKILL) leaves its socket: claim applies by itself, give-back
# gives back the daemon's pages and keeps the claim's (pages and file)
pool2m_set 0
rm -f /run/hpfilld/ledger /run/hpfilld/ledger-once
daemon_until "2M pool: $((BASE + 8))/$((BASE + 8)) pages"
kill -KILL $DPID
wait $DPID || true
exec 5<&-
[ -S /run/hpfilld/control ] || fail "the crashed daemon left no socket: nothing to test"
expect_rc 0 "$HPFILLD" claim vm5 --pool "2M:node$first=6" -v
expect_in "$WORK/err" "claim vm5: no daemon runs, applying it here"
expect_nr 14 "claim vm5 after the daemon crashed"
expect_rc 0 "$HPFILLD" give-back
expect_in "$WORK/out" "^2M pool of node$first: 8 pages given back \\($((BASE + 14)) -> $((BASE + 6))\\); 6 kept for the claims$"
expect_in "$WORK/out" "^1 claim kept \\(hpfilld unclaim NAME gives one back\\): vm5$"
expect_nr 6 "give-back beside claim vm5"
[ -f "$D/50-claim-vm5.conf" ] || fail "give-back removed the claim's file"
rm "$D/10-admin.conf"
expect_rc 0 "$HPFILLD" unclaim vm5
expect_nr 0 "unclaim vm5"
echo PASS
