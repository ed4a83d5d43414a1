#!/bin/sh
# SPDX-License-Identifier: MIT
# systemd-analyze verify on the generated unit, with ExecStart= and ExecReload= pointed at the built binary, and
# its exposure by systemd-analyze security: 2.0 at most.
set -eu
unit=$1 binary=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed -e "s|^ExecStart=[^ ]*|ExecStart=$binary|" -e "s|^ExecReload=[^ ]*hpfilld |ExecReload=$binary |" "$unit" >"$dir/hpfilld.service"
# verify prints problems and exits non-zero on errors; warnings about missing units named in
# Before= (kubelet.service, ...) are expected on a machine without them and are not errors.
out=$(systemd-analyze verify --man=no "$dir/hpfilld.service" 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -v -E "^$|kubelet|libvirtd|ovs-vswitchd|postgresql" | grep . && exit 1
exposure=$(systemd-analyze security --offline=true "$dir/hpfilld.service" 2>&1 |
        sed -n 's/.*Overall exposure level for hpfilld.service: \([0-9.]*\).*/\1/p')
echo "exposure: $exposure"
[ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || { echo "exposure above 2.0"; exit 1; }
echo PASS
