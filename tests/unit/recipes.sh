#!/bin/bash
# SPDX-License-Identifier: MIT
# The recipes under doc/recipes/ (kubelet, libvirt, DPDK, QEMU) are true:
#   - every hpfilld configuration in them is accepted by the binary (--once --dry-run on a fake
#     machine sized for them: two nodes of 16 GiB, 2M and 1G pages, a 2M hugetlbfs mount;
#     check_config in fake-tree.sh; nothing of the host's is read);
#   - every unit and drop-in passes systemd-analyze verify beside the built hpfilld.service and a
#     stub of the unit it extends (a drop-in with a bad key is caught: verify reads it there);
#   - the drop-ins order their unit after hpfilld.service and depend on it, by the unit's real name;
#   - the libvirt domain is well-formed XML and valid for libvirt's schema (virt-xml-validate);
#   - the names and paths agree with each other and with hpfilld: the QEMU recipe's mem-path is
#     MOUNT/hpfilld/NAME (RESERVE_DIR in include/fill/reserve.h) of its [Reserve] in a mount the
#     unit may write, sizes match; libvirt's hugetlbfs_mount and page size are those of the pool;
#     DPDK's --huge-dir is the mount unit's, of the pool's page size.
# Arguments: the built hpfilld.service and hpfilld binary. Environment: SOURCE_ROOT.
set -eu
unit=$1 hpfilld=$2
src=${SOURCE_ROOT:?}
doc=$src/doc/recipes
. "$(dirname "$0")/fake-tree.sh"
work_dir

fail() {
        echo "FAIL: $*"
        exit 1
}
# need TOOL PACKAGE: a skip without TOOL, a failure where CI is set (tools/setup.sh --test has it)
need() {
        command -v "$1" >/dev/null && return 0
        case ${CI:-} in
        "" | false | 0) echo "SKIP: no $1 (package $2)"; exit 77 ;;
        *) fail "no $1 (package $2; tools/setup.sh --test installs it)" ;;
        esac
}
need systemd-analyze systemd
need xmllint libxml2-utils
need virt-xml-validate libvirt-clients

# key FILE KEY: the values of KEY= in FILE, one a line
key() {
        sed -n "s/^$2=//p" "$1"
}

# 1. the hpfilld configurations
fake_machine "$work/root" 2 16384
fake_mount "$work/root" /dev/hugepages 2M
for f in "$doc"/*/hpfilld.conf; do
        name=${f#"$doc"/}
        check_config "$hpfilld" "$work/root" "$f" "$work" || fail "$name is rejected by hpfilld --once --dry-run, or has bad lines (above)"
        echo "ok   $name: $(grep -c '^\[Pool\]' "$f") pools, $(grep -c '^\[Reserve\]' "$f") reservations"
done

# 2. the units: each drop-in in UNIT.d/ of a stub UNIT, with hpfilld.service as built, the mount
# unit as it is
sed -e "s|^ExecStart=[^ ]*|ExecStart=$hpfilld|" -e "s|^ExecReload=[^ ]*hpfilld |ExecReload=$hpfilld |" "$unit" >"$work/hpfilld.service"
service=$(basename "$unit")
[ "$service" = hpfilld.service ] || fail "the unit is built as $service"
# verify_units UNIT...: systemd-analyze verify passes and prints nothing
verify_units() {
        local out
        out=$(cd "$work" && systemd-analyze verify --man=no "$@" 2>&1) || { echo "$out"; return 1; }
        ! echo "$out" | grep .
}
# stub UNIT DROPIN: UNIT, doing nothing but passing its environment on, with DROPIN
stub() {
        mkdir -p "$work/$1.d"
        printf "[Unit]\nDescription=stub for the recipe test\n[Service]\nExecStart=/bin/true \$DPDK_EAL_HUGE\n" >"$work/$1"
        cp "$2" "$work/$1.d/"
}
stub kubelet.service "$doc/kubelet/10-hpfilld.conf"
stub libvirtd.service "$doc/libvirt/10-hpfilld.conf"
stub dpdk-app.service "$doc/dpdk/10-hpfilld.conf"
cp "$doc/dpdk/dev-hugepages1G.mount" "$work/"
units="kubelet.service libvirtd.service dpdk-app.service dev-hugepages1G.mount"
# shellcheck disable=SC2086
verify_units $units || fail "systemd-analyze verify $units (above)"
echo "ok   systemd-analyze verify: $units"
# the drop-ins are read where they are: one with a bad key is caught
for u in kubelet.service libvirtd.service dpdk-app.service; do
        echo "NoSuchKey=1" >>"$work/$u.d/10-hpfilld.conf"
        if verify_units "$u" >"$work/out" 2>&1; then
                fail "systemd-analyze verify $u did not read $u.d/10-hpfilld.conf"
        fi
        grep -q "$u.d/10-hpfilld.conf:[0-9]*: Unknown key 'NoSuchKey'" "$work/out" || { cat "$work/out"; fail "$u: no word on the bad key"; }
        sed -i '$d' "$work/$u.d/10-hpfilld.conf"
done

# 3. each drop-in: after the unit by its name, and a dependency on it
for f in "$doc"/*/10-hpfilld.conf; do
        name=${f#"$doc"/}
        key "$f" After | tr ' ' '\n' | grep -qx "$service" || fail "$name: no After=$service"
        { key "$f" Requires; key "$f" Wants; } | tr ' ' '\n' | grep -qx "$service" || fail "$name: no Requires= or Wants= $service"
done
echo "ok   the drop-ins: After= and Requires=/Wants= $service"

# 4. the QEMU recipe: the reservation file, as hpfilld makes it, of the size reserved
reserve_dir=$(sed -n 's/^#define RESERVE_DIR "\(.*\)"$/\1/p' "$src/include/fill/reserve.h")
[ -n "$reserve_dir" ] || fail "no RESERVE_DIR in include/fill/reserve.h"
conf=$doc/qemu/hpfilld.conf args=$doc/qemu/memory.args
rname=$(sed -n '/^\[Reserve\]/,/^\[/s/^Name=//p' "$conf")
ramount=$(sed -n '/^\[Reserve\]/,/^\[/s/^Amount=//p' "$conf")
path=$(sed -n 's/^-object memory-backend-file,.*mem-path=\([^,]*\).*/\1/p' "$args")
size=$(sed -n 's/^-object memory-backend-file,.*size=\([^,]*\).*/\1/p' "$args")
mount=${path%/"$reserve_dir"/"$rname"}
[ "$path" != "$mount" ] && [ -n "$mount" ] || fail "qemu/memory.args: mem-path=$path, not MOUNT/$reserve_dir/$rname"
grep -E '^(ReadWritePaths|BindPaths)=' "$unit" | tr ' =' '\n\n' | sed 's/^-//' | grep -qx "$mount" ||
        fail "qemu/memory.args: $mount is not a mount hpfilld.service may write (ReadWritePaths=)"
[ "$size" = "$ramount" ] || fail "qemu/memory.args: size=$size, but the reservation is Amount=$ramount"
grep -qx -- "-m $size" "$args" || fail "qemu/memory.args: no -m $size (QEMU's memory must be the backend's size)"
grep -qE "^-machine [a-z0-9.-]+,memory-backend=$(sed -n 's/^-object memory-backend-file,id=\([^,]*\),.*/\1/p' "$args")$" "$args" ||
        fail "qemu/memory.args: -machine does not take the backend as its memory"
echo "ok   qemu: mem-path=$path ($reserve_dir/$rname in $mount), size=$size"

# 5. libvirt: schema, page size, the mount
xmllint --noout "$doc/libvirt/domain.xml"
virt-xml-validate "$doc/libvirt/domain.xml" domain || fail "libvirt/domain.xml is not valid for libvirt's schema"
xpath() {
        xmllint --xpath "$1" "$doc/libvirt/domain.xml"
}
[ "$(xpath 'string(/domain/memoryBacking/hugepages/page/@size)')$(xpath 'string(/domain/memoryBacking/hugepages/page/@unit)')" = 2048KiB ] ||
        fail "libvirt/domain.xml: the page is not 2048 KiB"
[ "$(key "$doc/libvirt/hpfilld.conf" PageSize)" = 2M ] || fail "libvirt/hpfilld.conf: not the 2M pool the domain uses"
hmount=$(sed -n 's/^hugetlbfs_mount = "\(.*\)"$/\1/p' "$doc/libvirt/qemu.conf")
# systemd's mount of the default size, which the unit is ordered after
[ "$hmount" = /dev/hugepages ] && key "$unit" After | tr ' ' '\n' | grep -qx dev-hugepages.mount ||
        fail "libvirt/qemu.conf: hugetlbfs_mount=$hmount, not /dev/hugepages (dev-hugepages.mount, After= in hpfilld.service)"
echo "ok   libvirt: domain.xml valid, 2048 KiB pages from the 2M pool, hugetlbfs_mount=$hmount"

# 6. DPDK: --huge-dir is the mount unit's, of the pool's page size
mnt=$doc/dpdk/dev-hugepages1G.mount
env=$(sed -n 's/^Environment="DPDK_EAL_HUGE=\(.*\)"$/\1/p' "$doc/dpdk/10-hpfilld.conf")
hdir=$(echo "$env" | sed -n 's/.*--huge-dir \([^ ]*\).*/\1/p')
[ -n "$hdir" ] && [ "$hdir" = "$(key "$mnt" Where)" ] || fail "dpdk: --huge-dir $hdir is not the mount's Where=$(key "$mnt" Where)"
[ "$(key "$doc/dpdk/10-hpfilld.conf" RequiresMountsFor)" = "$hdir" ] || fail "dpdk: RequiresMountsFor= is not $hdir"
[ "$(key "$mnt" Options | tr ',' '\n' | sed -n 's/^pagesize=//p')" = "$(key "$doc/dpdk/hpfilld.conf" PageSize)" ] ||
        fail "dpdk: the mount's page size is not the pool's PageSize=$(key "$doc/dpdk/hpfilld.conf" PageSize)"
mib=$(echo "$env" | sed -n 's/.*--socket-mem \([0-9,]*\).*/\1/p' | tr ',' '+')
pool_gib=$(key "$doc/dpdk/hpfilld.conf" Amount)
[ -n "$mib" ] && [ $(($mib)) -le $((pool_gib * 1024)) ] || fail "dpdk: --socket-mem asks for $(($mib)) MiB, the pool has $pool_gib GiB"
echo "ok   dpdk: --huge-dir $hdir ($(key "$mnt" Options)), --socket-mem $((mib)) MiB of $pool_gib GiB"
echo PASS
