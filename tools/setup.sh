#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what hpfilld needs from Debian's packages: to build (default), or to build and test (--test).
set -eu

build_pkgs="meson ninja-build gcc pkg-config libnuma-dev libhugetlbfs-dev libsystemd-dev libcap-dev scdoc"
# clang: the second compiler the tests build with; python3: a root test holds pages in a
# mapping; libhugetlbfs-bin (hugeadm) and numactl: peers for bench/.
test_pkgs="clang python3 libhugetlbfs-bin numactl"

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
