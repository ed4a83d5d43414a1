#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld.service in a real systemd boot: a Debian rootfs (mmdebstrap, cached) with hpfilld
# installed from its Debian package (built by dpkg-buildpackage from a clean copy of the tree, on
# the host for Debian 12, in a Debian 13 build root for HPFILLD_VM_SUITE=trixie, cached and shared
# with pkg-install-trixie; installed by apt: the unit enabled by the package's maintainer scripts,
# the initramfs-tools hook),
# and its own kernel and initramfs (regenerated with the hook), booted under QEMU (TCG) with four
# NUMA nodes (three with a CPU, one memory-only). Two boots of the same disk:
#   1. "ready": pools from /etc/hpfilld.conf.d/test.conf (written after the initramfs was made, so
#      the daemon does the fill). workload.service (Requires= and After=hpfilld.service) starts
#      only after hpfilld.service became active (READY=1) and sees every node's pool at its
#      target; the unit's status text and journal hold the report; the daemon runs with no
#      capabilities left; hpfilld logged nothing above info to the kernel log; it wrote the
#      metrics of MetricsFile= from inside its sandbox, and status --format=prometheus shows them. Then
#      `systemctl stop`: hpfilld exits 0 on SIGTERM and the pages stay.
#   2. "short": hpfilld.pool=2M:node1=<all of node1's MemTotal> on the kernel command line
#      (it replaces the configuration file's pools), more than the node can give: the memory
#      budget refuses it before anything is written. The initramfs script's hpfilld --once says
#      so and the boot goes on; the daemon exits 2 before READY=1, the unit fails (exit-code,
#      status 2, "Failed (exit status 2): ..."), workload.service never starts, and no page is
#      taken. (A fill that comes back short, exit 3, is vm-fault's and root-short's.)
# A checker unit in the guest (after multi-user.target) checks all this, prints FAIL: lines and
# ends the VM through vm-exit with the number of failures.
#
# Needs root, qemu-system-x86_64, mmdebstrap, mkfs.ext4 with -d (e2fsprogs), dpkg-buildpackage and
# debhelper, and Debian's mirror (once: the rootfs is cached). Environment: as tests/vm/rootfs.sh says
# (SOURCE_ROOT, VM_EXIT, HPFILLD_VM_CACHE, HPFILLD_VM_MIRROR, HPFILLD_VM_TIMEOUT, HPFILLD_VM_KEEP,
# CI).
set -eu

# shellcheck source=tests/vm/rootfs.sh
. "$(dirname "${BASH_SOURCE[0]}")/rootfs.sh"
# the guest: as tests/vm/per-node.sh, with enough memory for systemd
NODES=(1536:0 1024:1 1024:2 1024)
# the plan of the first boot: 2 MiB pages per node (node2 gets none)
PLAN="node0=64M,node1=32M,node3=96M"
WANT="node0=32 node1=16 node2=0 node3=48"
# after `systemctl reload` with node2=16M added to the plan
WANT_RELOAD="node0=32 node1=16 node2=8 node3=48"

rootfs_setup --mkfs-d

### The rootfs: a tarball made by mmdebstrap once, cached under a hash of its arguments

rootfs_tarball rootfs-deb "$ROOTFS_DEB_PKGS"

### hpfilld for the rootfs: its Debian package, installed by apt

start=$(date +%s%N)
rootfs_build_deb "$WORK"
rootfs_install_deb
[ -L "$ROOT/etc/systemd/system/sysinit.target.wants/hpfilld.service" ] ||
        fail "the package did not enable hpfilld.service"
rootfs_expect usr/sbin/hpfilld etc/hpfilld.conf lib/systemd/system/hpfilld.service \
        usr/share/initramfs-tools/hooks/hpfilld usr/share/initramfs-tools/scripts/init-premount/hpfilld
# the package's own unit: Type=notify for Debian 12's systemd (252), Type=notify-reload for Debian
# 13's (257), which the package built in a Debian 13 root has (rootfs_build_deb; the reload below
# then goes through systemd's notify-reload)
case $SUITE in
bookworm) WANT_TYPE=notify ;;
*) WANT_TYPE=notify-reload ;;
esac
grep -qx "Type=$WANT_TYPE" "$ROOT/lib/systemd/system/hpfilld.service" ||
        fail "the $SUITE package's unit is not Type=$WANT_TYPE (built against systemd $BUILD_SYSTEMD)"
cp "$VM_EXIT" "$ROOT/usr/local/sbin/vm-exit"
# a fixed machine-id: no first-boot logic
echo 5f4d0c3a9b2e4e7c8d1a6b3f2e1d0c9b >"$ROOT/etc/machine-id"
echo hpfilld-vm >"$ROOT/etc/hostname"

# workload.service: needs the filled pools; records what it finds when it starts
cat >"$ROOT/usr/local/sbin/hpfilld-vm-workload" <<'EOF'
#!/bin/sh
rec=""
for n in 0 1 2 3; do
        rec="$rec node$n=$(cat /sys/devices/system/node/node$n/hugepages/hugepages-2048kB/nr_hugepages)"
done
echo "${rec# }" >/run/hpfilld-vm-workload
echo "hpfilld-vm: workload started at $(cut -d' ' -f1 /proc/uptime) s, 2 MiB pages:$rec"
EOF
cat >"$ROOT/etc/systemd/system/workload.service" <<'EOF'
[Unit]
Description=hpfilld VM test workload (needs the filled pools)
Requires=hpfilld.service
After=hpfilld.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/hpfilld-vm-workload
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF

# the checker: after the boot, checks and ends the VM
cat >"$ROOT/usr/local/sbin/hpfilld-vm-check" <<EOF
#!/bin/sh
# hpfilld VM test, in the guest: checks the boot (case from hpfilld_vm.case=) and ends the VM
WANT="$WANT"
WANT_RELOAD="$WANT_RELOAD"
PLAN="$PLAN"
WANT_TYPE="$WANT_TYPE"
EOF
cat >>"$ROOT/usr/local/sbin/hpfilld-vm-check" <<'EOF'
G=hugepages/hugepages-2048kB
T=/run/hpfilld-vm
mkdir -p $T
fails=0
say() { echo "hpfilld-vm: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
prop() { systemctl show -P "$2" "$1"; }
counts() {
        local n rec=""
        for n in 0 1 2 3; do rec="$rec node$n=$(cat /sys/devices/system/node/node$n/$G/nr_hugepages)"; done
        echo "${rec# }"
}
expect() { # what got want
        if [ "$2" = "$3" ]; then say "$1: $2"; else bad "$1 is '$2', expected '$3'"; fi
}
expect_match() { # what got ERE
        if echo "$2" | grep -Eq -- "$3"; then say "$1: $2"; else bad "$1 is '$2', expected to match '$3'"; fi
}
# expect_line FILE ERE WHAT: a line of FILE matches
expect_line() {
        if grep -Eq -- "$2" "$1"; then say "$3: $(grep -E -- "$2" "$1" | head -n 1)"; else bad "no line matching '$2' in $3"; fi
}

case=$(sed -n 's/.*hpfilld_vm\.case=\([a-z]*\).*/\1/p' /proc/cmdline)
say "checking case '$case' at $(cut -d' ' -f1 /proc/uptime) s; $(nproc) CPUs, nodes with memory $(cat /sys/devices/system/node/has_memory), with CPUs $(cat /sys/devices/system/node/has_cpu)"
say "node1 MemTotal: $(sed -n 's/^Node 1 MemTotal: *\([0-9]*\) kB$/\1/p' /sys/devices/system/node/node1/meminfo) kB"
say "kernel command line: $(cat /proc/cmdline)"
say "$(systemctl --version | head -n 1) on Linux $(uname -r)"
systemctl show -p ActiveState -p SubState -p Result -p ExecMainStatus -p StatusText -p StatusErrno -p MainPID \
        -p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic hpfilld.service | sed 's/^/hpfilld-vm: hpfilld.service: /'
systemctl show -p ActiveState -p Result -p ExecMainStartTimestampMonotonic workload.service | sed 's/^/hpfilld-vm: workload.service: /'
journalctl -b -u hpfilld.service -o cat >$T/journal
journalctl -b -u hpfilld.service -o short-monotonic | sed 's/^/hpfilld-vm: journal: /'
# hpfilld's records in the kernel log (the initramfs script's --log-target=kmsg): "LEVEL hpfilld: ..."
dmesg --decode --notime | sed -n 's/^[a-z]* *:\([a-z]*\) *: \(hpfilld: .*\)$/\1 \2/p' >$T/kmsg
sed 's/^/hpfilld-vm: kernel log: /' $T/kmsg
say "2 MiB pages now: $(counts)"
# the record the daemon keeps in its RuntimeDirectory=
/usr/sbin/hpfilld status >$T/status 2>&1 || echo "exit status $?" >>$T/status
sed 's/^/hpfilld-vm: hpfilld status: /' $T/status
M=/var/lib/prometheus/node-exporter/hpfilld.prom
/usr/sbin/hpfilld status --format=prometheus >$T/prom 2>&1 || echo "exit status $?" >>$T/prom
grep -v '^#' $M 2>&1 | sed 's/^/hpfilld-vm: metrics: /'
workload=$(cat /run/hpfilld-vm-workload 2>/dev/null || echo none)
unit_start=$(prop hpfilld.service ExecMainStartTimestampMonotonic)
ready=$(prop hpfilld.service ActiveEnterTimestampMonotonic)
work_start=$(prop workload.service ExecMainStartTimestampMonotonic)

case $case in
ready)
        expect "hpfilld.service state" "$(prop hpfilld.service ActiveState)/$(prop hpfilld.service SubState)" active/running
        expect "hpfilld.service Type" "$(prop hpfilld.service Type)" "$WANT_TYPE"
        # the method is auto's choice (fault where the kernel zeroes on allocation, as Debian's does)
        report="^2M pool: 96/96 pages on 3 nodes in [0-9.]+ m?s \((sysfs|fault)[^)]*\)(, auto: .*)?$"
        expect_match "hpfilld.service StatusText" "$(prop hpfilld.service StatusText)" "$report"
        expect_line $T/journal "$report" "journalctl -u hpfilld"
        journalctl -b -u hpfilld.service -p warning -o cat >$T/warnings
        if [ -s $T/warnings ]; then
                sed 's/^/  | /' $T/warnings
                bad "warnings or errors in hpfilld.service's journal (above)"
        fi
        expect_line $T/status "^Last fill: .*, exit status 0$" "hpfilld status"
        # the daemon wrote the metrics from inside its sandbox
        expect_line $M '^hpfilld_pool_target_pages\{size="2M",node="3"\} 48$' "$M"
        expect_line $M '^hpfilld_pool_pages\{size="2M",node="1"\} 16$' "$M"
        expect_line $M '^hpfilld_last_fill_success 1$' "$M"
        expect "the metrics file's mode" "$(stat -c %a $M 2>&1)" 644
        expect "the metrics directory (no temp file left)" "$(ls -A ${M%/*} | tr '\n' ' ')" "hpfilld.prom "
        expect_line $T/prom '^hpfilld_pool_target_pages\{size="2M",node="0"\} 32$' "hpfilld status --format=prometheus"
        expect "the workload's record" "$workload" "$WANT"
        expect "2 MiB pages at the end" "$(counts)" "$WANT"
        if [ "${ready:-0}" -gt 0 ] && [ "${unit_start:-0}" -gt 0 ] && [ "$unit_start" -lt "$ready" ] &&
                [ "${work_start:-0}" -ge "$ready" ]; then
                say "order: hpfilld started at $unit_start us, ready at $ready us; workload started at $work_start us (monotonic)"
        else
                bad "order: hpfilld started at '$unit_start', ready (ActiveEnterTimestampMonotonic) at '$ready', workload started (ExecMainStartTimestampMonotonic) at '$work_start'"
        fi
        pid=$(prop hpfilld.service MainPID)
        if [ "${pid:-0}" -gt 0 ] && [ -r /proc/$pid/status ]; then
                grep -E '^(Cap|NoNewPrivs|Seccomp:)' /proc/$pid/status | sed "s/^/hpfilld-vm: hpfilld (pid $pid) /"
                expect "hpfilld's CapEff" "$(sed -n 's/^CapEff:\t*//p' /proc/$pid/status)" 0000000000000000
        else
                bad "hpfilld.service has no running main process (MainPID '$pid')"
        fi
        if grep -E '^(emerg|alert|crit|err|warn) ' $T/kmsg; then bad "hpfilld logged warnings or errors to the kernel log (above)"; fi
        # reload: `systemctl reload` returns once the new plan's pages are there. The host lock,
        # held here, holds the reload's fill back: while the fill waits for it (the daemon says
        # so in the journal), the reload must still be running; once the lock is let go, it ends
        # with the pages in place.
        sed -i "s/^Amount=.*/Amount=$PLAN,node2=16M/" /etc/hpfilld.conf.d/test.conf
        exec 7</run/hpfilld/host.lock
        flock 7
        waits() { journalctl -b -u hpfilld.service -o cat | grep -c '^Another fill is running'; }
        before=$(waits)
        systemctl reload hpfilld.service &
        rpid=$!
        n=0
        until [ "$(waits)" -gt "$before" ] || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
        if [ "$(waits)" -le "$before" ]; then
                bad "the reload's fill never waited for the host lock held by the checker"
        elif kill -0 $rpid 2>/dev/null; then
                say "systemctl reload still runs while the reload's fill waits for the host lock"
        else
                bad "systemctl reload returned while the reload's fill was still waiting for the host lock"
        fi
        flock -u 7
        exec 7<&-
        rc=0
        wait $rpid || rc=$?
        expect "systemctl reload's exit status" "$rc" 0
        expect "2 MiB pages as systemctl reload returned" "$(counts)" "$WANT_RELOAD"
        expect "hpfilld.service state after the reload" "$(prop hpfilld.service ActiveState)/$(prop hpfilld.service SubState)" active/running
        # stop: SIGTERM, hpfilld exits 0 by itself (ExecMainCode 1: exited, not killed), the pages stay
        systemctl stop hpfilld.service
        expect "hpfilld.service after stop (state/result/code/status)" \
                "$(prop hpfilld.service ActiveState)/$(prop hpfilld.service Result)/$(prop hpfilld.service ExecMainCode)/$(prop hpfilld.service ExecMainStatus)" \
                inactive/success/1/0
        expect "workload.service after stopping hpfilld.service (Requires=)" "$(prop workload.service ActiveState)" inactive
        expect "2 MiB pages after stop" "$(counts)" "$WANT_RELOAD"
        ;;
short)
        want=$(sed -n 's/.*hpfilld\.pool=2M:node1=\([0-9]*\).*/\1/p' /proc/cmdline)
        expect "hpfilld.service state" "$(prop hpfilld.service ActiveState)/$(prop hpfilld.service Result)/$(prop hpfilld.service ExecMainStatus)" failed/exit-code/2
        budget="node1: $((want * 2)) MiB of huge pages planned .*, more than the [0-9]+ MiB left of its [0-9]+ MiB of memory"
        expect_match "hpfilld.service StatusText" "$(prop hpfilld.service StatusText)" "^Failed \(exit status 2\)"
        expect "hpfilld.service StatusErrno (EINVAL)" "$(prop hpfilld.service StatusErrno)" 22
        expect_line $T/journal "^$budget" "journalctl -u hpfilld"
        expect_line $T/status "^Last fill: .*, exit status 2$" "hpfilld status"
        expect_line $M '^hpfilld_last_fill_exit_status 2$' "$M"
        expect "hpfilld.service ActiveEnterTimestampMonotonic (never ready)" "$ready" 0
        expect "workload.service state" "$(prop workload.service ActiveState)" inactive
        expect "workload.service ExecMainStartTimestampMonotonic (never started)" "$work_start" 0
        expect "the workload's record" "$workload" none
        journalctl -b -u workload.service -o cat >$T/workload
        expect_line $T/workload "^Dependency failed for " "journalctl -u workload"
        # the command line's pool replaced the configuration file's, and was refused whole
        expect "2 MiB pages at the end" "$(counts)" "node0=0 node1=0 node2=0 node3=0"
        # the initramfs script ran hpfilld, which refused it, and the boot went on
        expect_line $T/kmsg "^err hpfilld: $budget" "the kernel log"
        expect_line $T/kmsg "^[a-z]+ hpfilld: exit status 2, the boot goes on$" "the kernel log"
        ;;
*)
        bad "no hpfilld_vm.case= on the kernel command line"
        ;;
esac
if [ "$fails" -gt 0 ]; then
        systemctl --no-pager status hpfilld.service workload.service 2>&1 | sed 's/^/hpfilld-vm: status: /'
fi
[ "$fails" -le 63 ] || fails=63
say "guest result $fails at $(cut -d' ' -f1 /proc/uptime) s"
sync
/usr/local/sbin/vm-exit "$fails"
say "vm-exit failed"
EOF
chmod 755 "$ROOT/usr/local/sbin/hpfilld-vm-workload" "$ROOT/usr/local/sbin/hpfilld-vm-check"
cat >"$ROOT/etc/systemd/system/hpfilld-vm-check.service" <<'EOF'
[Unit]
Description=hpfilld VM test: check the boot and end the VM
After=multi-user.target hpfilld.service workload.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/hpfilld-vm-check
# the checker ends the VM; should it return instead, this does (62: a harness error)
ExecStopPost=/usr/local/sbin/vm-exit 62
# straight to the console (the journal's copy comes late, and prefixed)
StandardOutput=tty
StandardError=tty

[Install]
WantedBy=multi-user.target
EOF
# hpfilld.service: enabled by the package already
systemctl --root="$ROOT" --quiet enable workload.service hpfilld-vm-check.service ||
        fail "systemctl --root enable failed"
# no login prompt in the middle of the checker's lines
systemctl --root="$ROOT" --quiet mask serial-getty@ttyS0.service getty@tty1.service

# the initramfs, with the hook: before the test configuration exists, so that the initramfs has
# only the installed (all commented) /etc/hpfilld.conf and the daemon does the first boot's fill
rootfs_chroot update-initramfs -u -k all >"$WORK/initramfs.log" 2>&1 ||
        { cat "$WORK/initramfs.log"; fail "update-initramfs failed in the rootfs"; }
rootfs_kernel
chroot "$ROOT" lsinitramfs "/boot/initrd.img-$KVER" >"$WORK/initramfs.list"
for f in usr/sbin/hpfilld scripts/init-premount/hpfilld etc/hpfilld.conf usr/bin/busybox; do
        grep -qx "$f" "$WORK/initramfs.list" || fail "no $f in the initramfs (hook not run?)"
done

mkdir -p "$ROOT/etc/hpfilld.conf.d"
# the metrics for node_exporter's textfile collector, where Debian's has it: the unit may write there
mkdir -p "$ROOT/var/lib/prometheus/node-exporter"
cat >"$ROOT/etc/hpfilld.conf.d/test.conf" <<EOF
[Fill]
MetricsFile=/var/lib/prometheus/node-exporter/hpfilld.prom

[Pool]
PageSize=2M
Amount=$PLAN
EOF
mkfs.ext4 -q -F -L root -d "$ROOT" "$WORK/disk.img" 1G >/dev/null || fail "mkfs.ext4 -d failed"
echo "rootfs prepared in $(secs "$start") s: hpfilld's package built and installed, initramfs regenerated ($KVER)"

### the boots

# boot NAME APPEND: boots the disk with more kernel parameters; fails unless the checker passed.
# The console goes to $WORK/console-NAME.log; the checker's lines (and FAIL lines) are shown.
boot() {
        rootfs_boot "$1" "$WORK/console-$1.log" "root=/dev/vda rw console=ttyS0 panic=-1 quiet nokaslr $2"
}

boot ready "hpfilld_vm.case=ready"
# the suite's own systemd and kernel were what booted (252 and 6.1 in Debian 12, 257 and 6.12 in 13)
case $SUITE in
bookworm) want_systemd=252 want_linux=6.1. ;;
trixie) want_systemd=257 want_linux=6.12. ;;
*) want_systemd='[0-9]+' want_linux= ;;
esac
grep -Eq "^hpfilld-vm: systemd $want_systemd .* on Linux ${want_linux//./\\.}" "$WORK/console-ready.log" ||
        fail "the $SUITE guest did not run systemd $want_systemd on Linux $want_linux: $(grep '^hpfilld-vm: systemd ' "$WORK/console-ready.log")"
memtotal=$(sed -n 's/^hpfilld-vm: node1 MemTotal: \([0-9]*\) kB$/\1/p' "$WORK/console-ready.log" | tail -n 1)
[ -n "$memtotal" ] || fail "the first boot did not report node1's MemTotal"
# all of node1's memory, in whole pages: never available, but not more than hpfilld accepts
short=$((memtotal / 2048))
[ "$short" -gt 400 ] || fail "node1 MemTotal is $memtotal kB: not the 1 GiB node the test set up"
boot short "hpfilld_vm.case=short hpfilld.pool=2M:node1=$short"
echo PASS
