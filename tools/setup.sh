#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what hpfilld needs from Debian's packages: to build (default), or to build and test (--test).
set -eu

build_pkgs="meson ninja-build gcc pkg-config libnuma-dev libhugetlbfs-dev libsystemd-dev libcap-dev scdoc"
# clang: the second compiler the tests build with; python3: root tests hold pages in a mapping
# and talk sd_notify; libhugetlbfs-bin (hugeadm), dpdk (dpdk-hugepages.py) and numactl: peers for bench/; qemu, busybox,
# cpio and a static libc: the VM tests (tests/vm/, which fetch a Debian kernel package too);
# mmdebstrap, e2fsprogs and systemctl (package systemd, part of any installed Debian but not of
# a minbase chroot): the Debian rootfs that vm-systemd boots; procps: /bin/kill, which the unit's
# ExecReload= runs and `systemd-analyze verify` (tests/unit/verify-unit.sh) wants to find;
# debhelper and lintian: the Debian package built and checked (tests/pkg/); prometheus
# (promtool), prometheus-node-exporter and curl: the metrics checked and scraped as a fleet does;
# libxml2-utils (xmllint) and libvirt-clients (virt-xml-validate, libvirt's schemas): the libvirt
# recipe in doc/recipes/ checked, the libvirt hook's XML read; libvirt-daemon-system (libvirtd,
# virtlogd): the hook run by libvirt itself (tests/root/libvirt.sh; its postinst starts nothing
# where systemd is not PID 1: deb-systemd-invoke does nothing there); python3-jsonschema: the JSON output checked against
# doc/hpfilld-json.schema.json; build-essential: dpkg-buildpackage's own check of the build
# dependencies (not in a minbase root); tmux: the progress shown in a real terminal; strace: the
# writes of a fill counted (tests/root/sysfs-writes.sh), the journal's entry seen synced before
# the change it records (tests/root/journal.sh), the capabilities each command keeps seen dropped
# before its first file (tests/root/privilege.sh), what the daemon opens (tests/unit/config-once.sh);
# binutils: the binary's symbols (tests/unit/no-test-hooks.sh); valgrind: the instructions a run
# executes, counted (bench/instructions.py, run by tests/root/bench-scripts.sh).
test_pkgs="clang python3 libhugetlbfs-bin numactl qemu-system-x86 busybox-static cpio libc6-dev mmdebstrap e2fsprogs systemd procps
build-essential debhelper lintian prometheus prometheus-node-exporter curl libxml2-utils libvirt-clients libvirt-daemon-system python3-jsonschema
tmux strace binutils valgrind dpdk"

pkgs=$build_pkgs
case "${1:-}" in
--test) pkgs="$build_pkgs $test_pkgs" ;;
"") ;;
*) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

[ "$(id -u)" = 0 ] || { echo "$0: needs root to install:$missing" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
