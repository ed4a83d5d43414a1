#!/bin/sh
# SPDX-License-Identifier: MIT
# -Dstatic-initramfs=true: hpfilld-initramfs ($HPFILLD) is linked statically (no program
# interpreter, no NEEDED library: nothing for a dynamic loader to do at boot), says it has none of
# the optional libraries, fills a fake tree (a plain directory: the LD_PRELOADed fake kernel
# cannot reach a static binary, and a plain fill needs none), and is the binary the initramfs
# hooks made by this build copy ($HOOKS, $BINARY). Nothing here touches the host.
set -eu
: "${HPFILLD:?}" "${VERSION:?}" "${BINARY:?}"
. "$(dirname "$0")/fake-tree.sh"
command -v readelf >/dev/null || { echo "SKIP: no readelf (binutils)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if readelf -lW "$HPFILLD" | grep -q 'INTERP'; then
        bad "$HPFILLD has a program interpreter: $(readelf -lW "$HPFILLD" | grep -A1 INTERP | tr '\n' ' ')"
fi
if readelf -dW "$HPFILLD" 2>/dev/null | grep -q 'NEEDED'; then
        bad "$HPFILLD needs libraries: $(readelf -dW "$HPFILLD" | grep NEEDED | tr '\n' ' ')"
fi
"$HPFILLD" --version >"$work/version"
[ "$(sed -n 1p "$work/version")" = "hpfilld $VERSION" ] || bad "--version says '$(sed -n 1p "$work/version")'"
[ "$(sed -n 2p "$work/version")" = "-numa -hugetlbfs -systemd -libcap" ] ||
        bad "--version's features: '$(sed -n 2p "$work/version")', expected none"
echo "ok: static, $(tr '\n' ' ' <"$work/version")"

fake_machine "$work/t" 1 4096 2048
p=$work/t/sys/devices/system/node/node0/hugepages/hugepages-2048kB
rc=0
NOTIFY_SOCKET= "$HPFILLD" --once --root "$work/t" --mode sysfs --pool 2M:8 >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 0 ] || bad "the fill of the fake tree exited $rc: $(cat "$work/err")"
[ "$(cat "$p/nr_hugepages")" = 8 ] || bad "node0 holds $(cat "$p/nr_hugepages") pages after the fill, not 8"
echo "ok: a fill of a fake tree: $(head -n 1 "$work/out")"

for hook in ${HOOKS:-}; do
        if grep -qF "$BINARY " "$hook"; then
                echo "ok: $(basename "$hook") copies $BINARY"
        else
                bad "$(basename "$hook") does not copy $BINARY: $(grep -E 'copy_exec|inst_binary' "$hook" | tr '\n' ' ')"
        fi
done
passed
