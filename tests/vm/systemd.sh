#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld.service in a real systemd boot: a Debian rootfs (mmdebstrap, cached) with hpfilld
# installed by `meson install` (prefix /usr, initramfs-tools hook), the unit enabled as shipped,
# and its own kernel and initramfs (regenerated with the hook), booted under QEMU (TCG) with four
# NUMA nodes (three with a CPU, one memory-only). Two boots of the same disk:
#   1. "ready": pools from /etc/hpfilld.conf.d/test.conf (written after the initramfs was made, so
#      the daemon does the fill). workload.service (Requires= and After=hpfilld.service) starts
#      only after hpfilld.service became active (READY=1) and sees every node's pool at its
#      target; the unit's status text and journal hold the report; the daemon runs with no
#      capabilities left; hpfilld logged nothing above info to the kernel log. Then
#      `systemctl stop`: hpfilld exits 0 on SIGTERM and the pages stay.
#   2. "short": hpfilld.pool=2M:node1=<all of node1's MemTotal> on the kernel command line
#      (it replaces the configuration file's pools), more than the node can give: the initramfs
#      script's hpfilld --once comes back short and the boot goes on; the daemon exits 3 before
#      READY=1, the unit fails (exit-code, status 3, "Failed (exit status 3): ..."), and
#      workload.service never starts.
# A checker unit in the guest (after multi-user.target) checks all this, prints FAIL: lines and
# ends the VM through vm-exit with the number of failures.
#
# Needs root, qemu-system-x86_64, mmdebstrap, mkfs.ext4 with -d (e2fsprogs), meson and ninja, and
# Debian's mirror (once: the rootfs is cached). Environment: SOURCE_ROOT (the source tree to
# build and install; default: this script's), VM_EXIT (the static vm-exit helper; built with
# ${CC:-cc} -static when unset), HPFILLD_VM_CACHE (default /var/cache/hpfilld-vm: the rootfs
# tarball, keyed by a hash of the mmdebstrap arguments), HPFILLD_VM_MIRROR (default: the host's
# apt source for the suite), HPFILLD_VM_TIMEOUT (seconds per boot, default 300), HPFILLD_VM_KEEP=1
# (keep the work directory), CI (set: what would be a skip is a failure).
set -eu

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE_ROOT=${SOURCE_ROOT:-$(cd "$VM_DIR/../.." && pwd)}
VM_NAME=systemd
VM_TIMEOUT=${HPFILLD_VM_TIMEOUT:-300}
CACHE=${HPFILLD_VM_CACHE:-/var/cache/hpfilld-vm}
SUITE=bookworm
# the guest: as tests/vm/per-node.sh, with enough memory for systemd
NODES=(1536:0 1024:1 1024:2 1024)
# the plan of the first boot: 2 MiB pages per node (node2 gets none)
PLAN="node0=64M,node1=32M,node3=96M"
WANT="node0=32 node1=16 node2=0 node3=48"
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || cannot_run "no qemu-system-x86_64 (package qemu-system-x86)"
command -v mmdebstrap >/dev/null || cannot_run "no mmdebstrap (package mmdebstrap)"
command -v mkfs.ext4 >/dev/null || cannot_run "no mkfs.ext4 (package e2fsprogs)"
mkfs.ext4 2>&1 | grep -q -- '-d root-directory' || cannot_run "mkfs.ext4 has no -d (e2fsprogs 1.43 or later)"
for tool in meson ninja tar timeout chroot unshare flock sha256sum; do
        command -v "$tool" >/dev/null || cannot_run "no $tool"
done
[ -r "$SOURCE_ROOT/meson.build" ] || fail "SOURCE_ROOT=$SOURCE_ROOT is no source tree"

WORK=$(mktemp -d /tmp/hpfilld-vm-systemd.XXXXXX)
ROOT=$WORK/root
QEMU_PID=""

cleanup() {
        local rc=$?
        if [ -n "$QEMU_PID" ]; then
                kill "$QEMU_PID" 2>/dev/null || true
                wait "$QEMU_PID" 2>/dev/null || true
        fi
        if [ "${HPFILLD_VM_KEEP:-0}" = 1 ]; then
                echo "kept $WORK"
        else
                # the chroot's mounts were in a mount namespace of their own: none is left here
                rm -rf --one-file-system "$WORK"
        fi
        exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

secs() { # since (date +%s%N): seconds with one decimal
        local t=$((($(date +%s%N) - $1) / 100000000))
        echo "$((t / 10)).$((t % 10))"
}

if [ -z "${VM_EXIT:-}" ]; then
        VM_EXIT=$WORK/vm-exit
        "${CC:-cc}" -static -O2 -Wall -Wextra -Werror -o "$VM_EXIT" "$VM_DIR/vm-exit.c" ||
                cannot_run "cannot build vm-exit with ${CC:-cc} -static (static libc missing?)"
fi
[ -x "$VM_EXIT" ] || fail "VM_EXIT=$VM_EXIT is not an executable"
if ldd "$VM_EXIT" >/dev/null 2>&1; then
        fail "$VM_EXIT is not statically linked"
fi

### The rootfs: a tarball made by mmdebstrap once, cached under a hash of its arguments

# mirror: the host's apt source for $SUITE (main), or any Debian suite's, or deb.debian.org
mirror=${HPFILLD_VM_MIRROR:-}
if [ -z "$mirror" ]; then
        # shellcheck disable=SC2016 # apt-get's own $(FIELD) syntax
        targets=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' 2>/dev/null |
                sort -u || true)
        mirror=$(echo "$targets" | awk -v s="$SUITE" '$2 == s && $3 == "main" { print $1; exit }')
        [ -n "$mirror" ] || mirror=$(echo "$targets" | awk '$2 !~ /-/ && $3 == "main" { print $1; exit }')
        [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi
# shellcheck disable=SC2054 # the commas are mmdebstrap's
mm_args=(--variant=apt
        --include=systemd-sysv,udev,kmod,initramfs-tools,linux-image-cloud-amd64,libnuma1,libcap2,busybox
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
        --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Languages "none"'
        "$SUITE")
key=$(printf '%s\n' "${mm_args[@]}" | sha256sum | cut -c1-12)
rootfs=$CACHE/rootfs-$SUITE-$key.tar
mkdir -p "$CACHE"
exec 9>"$CACHE/.rootfs.lock"
flock 9
if [ ! -s "$rootfs" ]; then
        echo "building the rootfs with mmdebstrap from $mirror (once; a few minutes)"
        start=$(date +%s%N)
        rm -f "$CACHE"/.rootfs.*.tar # what a killed build left
        tmp=$(mktemp "$CACHE/.rootfs.XXXXXX.tar")
        if ! mmdebstrap -q "${mm_args[@]}" "$tmp" "$mirror" >"$WORK/mmdebstrap.log" 2>&1; then
                tail -n 30 "$WORK/mmdebstrap.log"
                rm -f "$tmp"
                cannot_run "mmdebstrap failed (no network or mirror?) - see above"
        fi
        chmod 644 "$tmp"
        mv "$tmp" "$rootfs"
        for old in "$CACHE"/rootfs-*.tar; do
                [ "$old" = "$rootfs" ] || rm -f "$old"
        done
        echo "rootfs: $(du -h "$rootfs" | cut -f1) in $(secs "$start") s"
fi
exec 9>&-

### hpfilld for the rootfs: built with prefix /usr and installed by meson

start=$(date +%s%N)
if ! { meson setup "$WORK/build" "$SOURCE_ROOT" --prefix=/usr -Dtests=false -Dinitramfs-tools=enabled \
        -Ddracut=disabled -Dman-pages=disabled && ninja -C "$WORK/build"; } >"$WORK/build.log" 2>&1; then
        tail -n 30 "$WORK/build.log"
        fail "building hpfilld with --prefix=/usr failed"
fi
mkdir "$ROOT"
tar -x -C "$ROOT" -f "$rootfs"
DESTDIR=$ROOT meson install -C "$WORK/build" --no-rebuild >"$WORK/install.log" 2>&1 ||
        { cat "$WORK/install.log"; fail "meson install failed"; }
for f in usr/sbin/hpfilld etc/hpfilld.conf lib/systemd/system/hpfilld.service \
        usr/share/initramfs-tools/hooks/hpfilld usr/share/initramfs-tools/scripts/init-premount/hpfilld; do
        [ -e "$ROOT/$f" ] || { cat "$WORK/install.log"; fail "meson install put no /$f in the rootfs"; }
done
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
workload=$(cat /run/hpfilld-vm-workload 2>/dev/null || echo none)
unit_start=$(prop hpfilld.service ExecMainStartTimestampMonotonic)
ready=$(prop hpfilld.service ActiveEnterTimestampMonotonic)
work_start=$(prop workload.service ExecMainStartTimestampMonotonic)

case $case in
ready)
        expect "hpfilld.service state" "$(prop hpfilld.service ActiveState)/$(prop hpfilld.service SubState)" active/running
        # the method is auto's choice (fault where the kernel zeroes on allocation, as Debian's does)
        report="^2M pool: 96/96 pages on 3 nodes in [0-9.]+ m?s \((sysfs|fault)[^)]*\)$"
        expect_match "hpfilld.service StatusText" "$(prop hpfilld.service StatusText)" "$report"
        expect_line $T/journal "$report" "journalctl -u hpfilld"
        journalctl -b -u hpfilld.service -p warning -o cat >$T/warnings
        if [ -s $T/warnings ]; then
                sed 's/^/  | /' $T/warnings
                bad "warnings or errors in hpfilld.service's journal (above)"
        fi
        expect_line $T/status "^Last fill: .*, exit status 0$" "hpfilld status"
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
        # stop: SIGTERM, hpfilld exits 0 by itself (ExecMainCode 1: exited, not killed), the pages stay
        systemctl stop hpfilld.service
        expect "hpfilld.service after stop (state/result/code/status)" \
                "$(prop hpfilld.service ActiveState)/$(prop hpfilld.service Result)/$(prop hpfilld.service ExecMainCode)/$(prop hpfilld.service ExecMainStatus)" \
                inactive/success/1/0
        expect "workload.service after stopping hpfilld.service (Requires=)" "$(prop workload.service ActiveState)" inactive
        expect "2 MiB pages after stop" "$(counts)" "$WANT"
        ;;
short)
        want=$(sed -n 's/.*hpfilld\.pool=2M:node1=\([0-9]*\).*/\1/p' /proc/cmdline)
        expect "hpfilld.service state" "$(prop hpfilld.service ActiveState)/$(prop hpfilld.service Result)/$(prop hpfilld.service ExecMainStatus)" failed/exit-code/3
        report="2M pool: [0-9]+/$want pages on 1 node in [0-9.]+ m?s \((sysfs|fault)[^)]*\)"
        expect_match "hpfilld.service StatusText" "$(prop hpfilld.service StatusText)" "^Failed \(exit status 3\): $report"
        expect "hpfilld.service StatusErrno (ENOMEM)" "$(prop hpfilld.service StatusErrno)" 12
        expect_line $T/journal "^$report" "journalctl -u hpfilld"
        expect_line $T/status "^Last fill: .*, exit status 3$" "hpfilld status"
        expect "hpfilld.service ActiveEnterTimestampMonotonic (never ready)" "$ready" 0
        expect "workload.service state" "$(prop workload.service ActiveState)" inactive
        expect "workload.service ExecMainStartTimestampMonotonic (never started)" "$work_start" 0
        expect "the workload's record" "$workload" none
        journalctl -b -u workload.service -o cat >$T/workload
        expect_line $T/workload "^Dependency failed for " "journalctl -u workload"
        # the command line's pool replaced the configuration file's: no pages on nodes 0, 2, 3
        expect_match "2 MiB pages at the end" "$(counts)" "^node0=0 node1=[0-9]+ node2=0 node3=0$"
        # the initramfs script ran hpfilld, which came back short, and the boot went on
        expect_line $T/kmsg "^[a-z]+ hpfilld: exit status 3, the boot goes on$" "the kernel log"
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
systemctl --root="$ROOT" --quiet enable hpfilld.service workload.service hpfilld-vm-check.service ||
        fail "systemctl --root enable failed"
# no login prompt in the middle of the checker's lines
systemctl --root="$ROOT" --quiet mask serial-getty@ttyS0.service getty@tty1.service

# the initramfs, with the hook: before the test configuration exists, so that the initramfs has
# only the installed (all commented) /etc/hpfilld.conf and the daemon does the first boot's fill.
# The chroot's /proc, /sys and /dev (a tmpfs with a few nodes, not the host's) are mounted in a
# mount namespace of its own: they go away with it, however the test ends.
# shellcheck disable=SC2016 # expanded by that shell
unshare --mount --propagation private /bin/sh -ec '
        mount -t proc proc "$1/proc"
        mount -t sysfs sysfs "$1/sys"
        mount -t tmpfs -o mode=755 tmpfs "$1/dev"
        for node in null:3 zero:5 full:7 random:8 urandom:9; do
                mknod -m 666 "$1/dev/${node%:*}" c 1 "${node#*:}"
        done
        chroot "$1" update-initramfs -u -k all
' sh "$ROOT" >"$WORK/initramfs.log" 2>&1 ||
        { cat "$WORK/initramfs.log"; fail "update-initramfs failed in the rootfs"; }
kernel=$(cd "$ROOT/boot" && printf '%s\n' vmlinuz-* | sort -V | tail -n 1)
[ -f "$ROOT/boot/$kernel" ] || fail "no kernel in the rootfs's /boot"
kver=${kernel#vmlinuz-}
chroot "$ROOT" lsinitramfs "/boot/initrd.img-$kver" >"$WORK/initramfs.list"
for f in usr/sbin/hpfilld scripts/init-premount/hpfilld etc/hpfilld.conf usr/bin/busybox; do
        grep -qx "$f" "$WORK/initramfs.list" || fail "no $f in the initramfs (hook not run?)"
done

mkdir -p "$ROOT/etc/hpfilld.conf.d"
cat >"$ROOT/etc/hpfilld.conf.d/test.conf" <<EOF
[Pool]
PageSize=2M
Amount=$PLAN
EOF
mkfs.ext4 -q -F -L root -d "$ROOT" "$WORK/disk.img" 1G >/dev/null || fail "mkfs.ext4 -d failed"
echo "rootfs prepared in $(secs "$start") s: hpfilld built and installed, initramfs regenerated ($kver)"

### the boots

# boot NAME APPEND: boots the disk; fails unless the checker passed. The console goes to
# $WORK/console-NAME.log; the checker's lines (and FAIL lines) are shown.
boot() {
        local name=$1 log=$WORK/console-$1.log spec mib cpus id=0 total=0 status rc
        local -a numa=()
        for spec in "${NODES[@]}"; do
                mib=${spec%%:*}
                cpus=""
                [ "$spec" = "$mib" ] || cpus=${spec#*:}
                numa+=(-object "memory-backend-ram,id=m$id,size=${mib}M"
                        -numa "node,nodeid=$id,memdev=m$id${cpus:+,cpus=$cpus}")
                total=$((total + mib))
                id=$((id + 1))
        done
        echo "booting $name: $kernel, nodes ${NODES[*]}, timeout ${VM_TIMEOUT}s, append: $2"
        start=$(date +%s%N)
        # stdin from /dev/null: QEMU must not read the test runner's terminal
        timeout "$VM_TIMEOUT" qemu-system-x86_64 \
                -accel tcg,thread=multi -cpu max \
                -m "${total}M" -smp 3 "${numa[@]}" \
                -nodefaults -nographic -no-reboot -serial stdio -monitor none -nic none \
                -kernel "$ROOT/boot/$kernel" -initrd "$ROOT/boot/initrd.img-$kver" \
                -append "root=/dev/vda rw console=ttyS0 panic=-1 quiet nokaslr $2" \
                -drive "file=$WORK/disk.img,if=virtio,format=raw" \
                -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
                </dev/null >"$log" 2>&1 &
        QEMU_PID=$!
        status=0
        wait "$QEMU_PID" || status=$?
        QEMU_PID=""
        sed -e "s/\r//g" -e "s/\x1b\[[0-9;?]*[A-Za-z]//g" -e "s/\x1bc/\n/g" "$log" >"$log.txt"
        mv "$log.txt" "$log"
        rc=$(sed -n 's/^hpfilld-vm: guest result \([0-9]*\) .*/\1/p' "$log" | tail -n 1)
        if [ "$status" = 1 ] && [ "$rc" = 0 ]; then
                grep -E '^(hpfilld-vm|FAIL):' "$log"
                echo "--- $name: passed, QEMU exited after $(secs "$start") s"
                return 0
        fi
        echo "--- guest console (last 150 lines)"
        tail -n 150 "$log"
        echo "--- $name: QEMU exited $status after $(secs "$start") s"
        if [ "$status" = 124 ]; then
                fail "$name: no result within ${VM_TIMEOUT}s (QEMU killed; the boot hung?)"
        elif [ $((status % 2)) = 1 ] && [ "$status" -ge 3 ] && [ "$status" -le $((VM_MAX_BYTE * 2 + 1)) ] &&
                [ -n "$rc" ]; then
                fail "$name: $rc check(s) failed in the guest (see FAIL above)"
        elif [ "$status" = 0 ]; then
                fail "$name: harness error: QEMU exited 0 (kernel panic, or the guest powered off without vm-exit)"
        else
                fail "$name: harness error: QEMU exited $status, guest result '${rc:-none}'"
        fi
}

boot ready "hpfilld_vm.case=ready"
memtotal=$(sed -n 's/^hpfilld-vm: node1 MemTotal: \([0-9]*\) kB$/\1/p' "$WORK/console-ready.log" | tail -n 1)
[ -n "$memtotal" ] || fail "the first boot did not report node1's MemTotal"
# all of node1's memory, in whole pages: never available, but not more than hpfilld accepts
short=$((memtotal / 2048))
[ "$short" -gt 400 ] || fail "node1 MemTotal is $memtotal kB: not the 1 GiB node the test set up"
boot short "hpfilld_vm.case=short hpfilld.pool=2M:node1=$short"
echo PASS
