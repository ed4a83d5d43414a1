#!/bin/bash
# SPDX-License-Identifier: MIT
# The libvirt qemu hook (doc/recipes/libvirt/qemu-hook) with real libvirt: Debian's libvirtd,
# started here in a mount namespace of the test's own after a 2M hugetlbfs mount exists, the
# hook installed as /etc/libvirt/hooks/qemu.d/hpfilld (a tmpfs there: the host's hooks are
# neither run nor touched; it runs the source tree's hook with the built hpfilld), a
# small TCG domain (<domain type='qemu'>, 64 MiB, <memoryBacking><hugepages/>, no disk: it sits
# in SeaBIOS) whose name needs escaping.
#   - virsh start of a domain bound to node0 (<numatune>): the hook's `hpfilld claim` grows
#     node0's 2M pool by the domain's 32 pages, on top of the pages others hold there (a claim
#     counts none of them: hpfilld(8), OWNERS), QEMU takes and maps them all (free_hugepages as
#     before, its numa_maps), the domain is running, the claim (node0=32) is in hpfilld's state
#     (hpfilld status lists it), no file is written for it;
#   - virsh destroy: the release hook's unclaim gives them back: every pool counter as before,
#     no claim;
#   - a domain of more 2M memory than the host has (MemTotal; no <numatune>: hpfilld's spread):
#     virsh start fails with hpfilld's message, in virsh's error and in libvirtd's log; the
#     claim is refused by hpfilld's memory budget before any page is asked for (QEMU never
#     starts), every pool counter is as before, no claim is left, the domain is shut off.
# /run/hpfilld and /run/hpfilld.conf.d are the test's too (tmpfs), so that no claim or fill
# record of the host's is read or changed (nor an old hpfilld's claim drop-in converted). Puts back what it found: domains undefined, the
# libvirtd and virtlogd it started stopped, its mounts gone, the pools (lib.sh). Skips (77)
# without root, a mount namespace, libvirtd, virsh or QEMU, without `hpfilld claim`, where a
# libvirtd runs already (it reads its hooks when it starts) or hpfilld's configuration files
# are there. Run it under the host lock.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"
[ -n "${IN_OWN_MOUNT_NS:-}" ] || { echo "SKIP: no mount namespace of its own (unshare)"; exit 77; }

for t in libvirtd virtlogd virsh qemu-system-x86_64 xmllint; do
        command -v "$t" >/dev/null ||
                { echo "SKIP: no $t (tools/setup.sh --test installs libvirt-daemon-system, libvirt-clients, qemu-system-x86, libxml2-utils)"; exit 77; }
done
"$HPFILLD" claim --help >/dev/null 2>&1 || { echo "SKIP: hpfilld claim not built"; exit 77; }
if pid=$(pgrep -x libvirtd) || pid=$(pgrep -x virtqemud); then
        echo "SKIP: a libvirt daemon runs already (pid $pid): it read its hooks when it started; stop it to run this test"
        exit 77
fi
hook=$SOURCE_ROOT/doc/recipes/libvirt/qemu-hook
[ -x "$hook" ] || fail "$hook is not executable"

NAME=hpfilld-test_1 CLAIM=libvirt-hpfilld-test_5f1
BIG=hpfilld-test-big BIGCLAIM=libvirt-hpfilld-test-big
HOOKDIR=/etc/libvirt/hooks/qemu.d
# claim NAME: the claim NAME as hpfilld status --json lists it, "SIZE NODE PAGES" a line
claim() {
        "$HPFILLD" status --json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["claims"]:
    if c["name"] == sys.argv[1]:
        print(c["page_size"], c["node"], c["pages"])' "$1"
}
# no_claim_file: hpfilld claim writes no file (the old drop-ins in /run/hpfilld.conf.d)
no_claim_file() {
        [ -z "$(ls -A /run/hpfilld.conf.d)" ] || fail "$1: files in /run/hpfilld.conf.d: $(ls -A /run/hpfilld.conf.d)"
}
# qemu_huge_pages NAME: the 2M pages domain NAME's QEMU maps on node0 (its numa_maps)
qemu_huge_pages() {
        local pid
        pid=$(cat "/run/libvirt/qemu/$1.pid" 2>/dev/null) || pid=$(pgrep -f -- "-name guest=$1,") || { echo none; return; }
        awk '/kernelpagesize_kB=2048/ { for (i = 1; i <= NF; i++) if ($i ~ /^N0=/) n += substr($i, 4) } END { print n + 0 }' \
                "/proc/$pid/numa_maps"
}
[ "$first" = 0 ] || { echo "SKIP: no memory on node0"; exit 77; }
N0=$NODES/node0/hugepages/hugepages-2048kB
F=$HP/hugepages-2048kB/free_hugepages
# The pool as lib.sh leaves it: the pages others hold (BASE), none free but those they reserved.
# A claim adds its pages on top of whatever the pool holds, with no [Pool] (hpfilld(8), OWNERS):
# the domain's claim grows node0's pool by its 32 pages, and QEMU finds all of them free.

undo=""
# later CMD: CMD at the end, before the ones registered earlier
later() {
        undo="$1; $undo"
}
EXTRA_CLEANUP='eval "$undo"'
for f in /etc/hpfilld.conf /etc/hpfilld.conf.d /usr/lib/hpfilld.conf.d; do
        [ -e "$f" ] && { echo "SKIP: $f on this host would be part of every claim's configuration"; exit 77; }
done
# the test's own, in its mount namespace (libvirtd, started in it, sees them): hpfilld's state
# and claims (/run/hpfilld, /run/hpfilld.conf.d), libvirt's hooks with only this one, a 2M
# hugetlbfs mount (made before libvirtd starts: it looks for them at its start; lib.sh has
# unmounted the host's here)
for d in /run/hpfilld /run/hpfilld.conf.d /etc/libvirt/hooks /dev/hugepages; do
        if [ ! -d "$d" ]; then
                mkdir -m 0755 "$d"
                later "rmdir '$d'"
        fi
        if [ "$d" = /dev/hugepages ]; then
                mount -t hugetlbfs -o pagesize=2M hpfilld-test "$d"
        else
                mount -t tmpfs -o mode=0755 hpfilld-test "$d"
        fi
        later "umount '$d'"
done
mkdir "$HOOKDIR"
printf '#!/bin/sh\n# the hook of %s, with the hpfilld built there (tests/root/libvirt.sh)\nHPFILLD=%s exec /bin/sh %s "$@"\n' \
        "$SOURCE_ROOT" "$HPFILLD" "$hook" >"$HOOKDIR/hpfilld"
chmod 0755 "$HOOKDIR/hpfilld"

# the daemons: virtlogd (QEMU's log; one running already is used), then libvirtd, its log here
if ! pgrep -x virtlogd >/dev/null; then
        virtlogd -d -p "$WORK/virtlogd.pid"
        later 'stop_daemon "$WORK/virtlogd.pid"'
fi
# stop_daemon PIDFILE: SIGTERM to the daemon of PIDFILE, and wait for it to end
stop_daemon() {
        local pid
        pid=$(cat "$1" 2>/dev/null) || return 0
        kill -TERM "$pid" 2>/dev/null || return 0
        timeout 30 tail --pid="$pid" -f /dev/null || echo "$1 (pid $pid) did not stop within 30 s" >&2
}
LIBVIRT_LOG_OUTPUTS="3:file:$WORK/libvirtd.log" libvirtd -d -p "$WORK/libvirtd.pid"
later 'stop_daemon "$WORK/libvirtd.pid"'
V="virsh -q -c qemu:///system"
$V version >/dev/null 2>&1 || { $V version; fail "libvirtd does not answer"; }
echo "libvirtd $(libvirtd --version | awk '{ print $NF }'), pid $(cat "$WORK/libvirtd.pid")"

# domain NAME MIB [XML]: a TCG domain of MIB MiB of memory on huge pages of the default size, with XML
# (a <numatune>) in it
domain() {
        cat >"$WORK/$1.xml" <<EOF
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>$2</memory>
  <memoryBacking><hugepages/></memoryBacking>
  ${3:-}
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices>
    <emulator>$(command -v qemu-system-x86_64)</emulator>
  </devices>
</domain>
EOF
        ! $V domstate "$1" >/dev/null 2>&1 || fail "a domain $1 is defined already"
        $V define "$WORK/$1.xml" >/dev/null
        later "$V destroy '$1' >/dev/null 2>&1; $V undefine '$1' >/dev/null 2>&1; rm -f '/var/log/libvirt/qemu/$1.log'"
}
state() {
        $V domstate "$1" 2>&1
}

# 1. a domain of 64 MiB bound to node0: its 32 pages claimed there (--pool 2M:node0=32), taken
# by QEMU, given back
domain "$NAME" 64 "<numatune><memory mode='strict' nodeset='0'/></numatune>"
before=$(snapshot)
nr0=$(cat "$N0/nr_hugepages") free=$(cat "$F")
$V start "$NAME" >"$WORK/out" 2>&1 || { cat "$WORK/out"; tail -n 20 "$WORK/libvirtd.log"; fail "virsh start $NAME failed"; }
[ "$(state "$NAME")" = running ] || fail "$NAME is $(state "$NAME"), not running"
got=$(cat "$N0/nr_hugepages")
[ "$got" = $((nr0 + 32)) ] || fail "node0's 2M pool holds $got pages with $NAME running, expected $nr0 + 32"
[ "$(cat "$F")" = "$free" ] || fail "$(cat "$F") free 2M pages with $NAME running, $free before: QEMU did not take the 32 claimed"
mapped=$(qemu_huge_pages "$NAME")
[ "$mapped" = 32 ] || fail "QEMU of $NAME maps $mapped 2M pages of node0, expected its 32"
[ "$(claim "$CLAIM")" = "2097152 0 32" ] || fail "the claim $CLAIM is '$(claim "$CLAIM")', expected 32 2M pages on node0"
no_claim_file "$NAME running"
"$HPFILLD" status >"$WORK/status" 2>&1 || true
grep -Eq "^$CLAIM +2M +node0 +32 " "$WORK/status" || { cat "$WORK/status"; fail "hpfilld status does not list $CLAIM: 32 2M pages on node0 (above)"; }
echo "ok   virsh start $NAME: node0's 2M pool $nr0 -> $got, QEMU maps its 32 pages, claim $CLAIM in the state"
$V destroy "$NAME" >/dev/null
[ "$(state "$NAME")" = "shut off" ] || fail "$NAME is $(state "$NAME") after virsh destroy"
[ "$(snapshot)" = "$before" ] || { diff <(echo "$before") <(snapshot); fail "the pools after virsh destroy $NAME are not as before (above)"; }
[ -z "$(claim "$CLAIM")" ] || fail "the claim $CLAIM is left after virsh destroy: $(claim "$CLAIM")"
echo "ok   virsh destroy $NAME: the pools as before ($nr0 pages on node0), no claim"

# 2. a domain bigger than the host: refused by the hook before QEMU starts, nothing changed
total_mib=$(($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / 1024))
big_mib=$((total_mib / 2 * 2 + 2))
domain "$BIG" "$big_mib"
if $V start "$BIG" >"$WORK/out" 2>&1; then
        $V destroy "$BIG" >/dev/null 2>&1
        fail "virsh start $BIG ($big_mib MiB of 2M pages, MemTotal $total_mib MiB) succeeded"
fi
cat "$WORK/out"
grep -q "hpfilld: " "$WORK/out" || fail "virsh's error does not carry hpfilld's message"
grep -q "hpfilld qemu hook: domain '$BIG' not started" "$WORK/out" || fail "virsh's error does not say the hook refused $BIG"
msg=$(grep -o "hpfilld: [^|]*" "$WORK/out" | head -n 1 | cut -c1-60)
grep -qF "$msg" "$WORK/libvirtd.log" || { tail -n 20 "$WORK/libvirtd.log"; fail "libvirtd's log has no '$msg'"; }
[ "$(state "$BIG")" = "shut off" ] || fail "$BIG is $(state "$BIG")"
[ "$(snapshot)" = "$before" ] || { diff <(echo "$before") <(snapshot); fail "the pools after the refused $BIG are not as before (above)"; }
[ -z "$(claim "$BIGCLAIM")" ] || fail "the claim $BIGCLAIM is left after the refused start: $(claim "$BIGCLAIM")"
no_claim_file "the refused $BIG"
! grep -q "qemu-system" "/var/log/libvirt/qemu/$BIG.log" 2>/dev/null || fail "QEMU was started for $BIG"
echo "ok   virsh start $BIG: refused with hpfilld's message (virsh and libvirtd's log), pools as before, no claim"
echo PASS
