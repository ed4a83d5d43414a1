#!/bin/sh
# SPDX-License-Identifier: MIT
# systemd-analyze verify on the generated unit, with ExecStart= pointed at the built binary.
set -eu
unit=$1 binary=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s|^ExecStart=[^ ]*|ExecStart=$binary|" "$unit" >"$dir/hpfilld.service"
# verify prints problems and exits non-zero on errors; warnings about missing units named in
# Before= (kubelet.service, ...) are expected on a machine without them and are not errors.
out=$(systemd-analyze verify --man=no "$dir/hpfilld.service" 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -v -E "^$|kubelet|libvirtd|ovs-vswitchd|postgresql" | grep . && exit 1
echo PASS
