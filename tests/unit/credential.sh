#!/bin/sh
# SPDX-License-Identifier: MIT
# The service manager's credential hpfilld.conf ($CREDENTIALS_DIRECTORY) is the last of the
# files: on a fake machine a fill takes its pool over a drop-in's; without the variable, or with
# --config, it is not read; a bad one is refused (exit 2) in a message naming it, and nothing is
# written. Whichever of them the fill reads, its pages are the configuration's (one owner in
# run/hpfilld/state), so --shrink gives back what one added beyond what the next asks.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
work_dir
nr() { cat "$work/m/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"; }
# owners HELD/WANT: the configuration holds and wants that of node0's 2M pool, and no other owner
# is in the state
owners() {
        [ "$(state_share "$work/m" config 2048 0)" = "$1" ] || bad "the configuration's share: $(cat "$work/m/run/hpfilld/state")"
        [ "$(grep -c '^owner ' "$work/m/run/hpfilld/state")" = 1 ] || bad "owners: $(cat "$work/m/run/hpfilld/state")"
}
fill() {
        rc=0
        "$HPFILLD" --once --mode sysfs --shrink --root "$work/m" "$@" >"$work/out" 2>"$work/err" || rc=$?
}
machine() {
        fake_machine "$work/m" 1 4096 2048
        fake_pools "$work/m"
        mkdir -p "$work/m/etc/hpfilld.conf.d"
        printf '[Pool]\nPageSize=2M\nAmount=node0=32M\n' >"$work/m/etc/hpfilld.conf.d/90-last.conf"
}
mkdir "$work/creds"
printf '[Pool]\nPageSize=2M\nAmount=node0=64M\n' >"$work/creds/hpfilld.conf"

machine
CREDENTIALS_DIRECTORY=$work/creds fill
[ "$rc" = 0 ] && [ "$(nr)" = 32 ] || bad "with the credential: exit $rc, node0 $(nr) pages (expected 32): $(cat "$work/err")"
owners 32/32
echo "ok: the credential over the last drop-in: node0 $(nr) pages"

machine
fill
[ "$rc" = 0 ] && [ "$(nr)" = 16 ] || bad "without CREDENTIALS_DIRECTORY: exit $rc, node0 $(nr) pages (expected 16)"
owners 16/16
# after the credential's fill, the drop-in's gives back what the credential's added beyond it
CREDENTIALS_DIRECTORY=$work/creds fill
fill
[ "$rc" = 0 ] && [ "$(nr)" = 16 ] || bad "the drop-in's after the credential's: exit $rc, node0 $(nr) pages (expected 16)"
owners 16/16
printf '[Pool]\nPageSize=2M\nAmount=node0=8M\n' >"$work/other.conf"
CREDENTIALS_DIRECTORY=$work/creds fill --config "$work/other.conf"
[ "$rc" = 0 ] && [ "$(nr)" = 4 ] || bad "--config with a credential: exit $rc, node0 $(nr) pages (expected --config's 4)"
owners 4/4
echo "ok: no credential without the variable, nor with --config"

machine
printf '[Pool]\nPageSize=2M\nAmount=lots\n' >"$work/creds/hpfilld.conf"
CREDENTIALS_DIRECTORY=$work/creds fill
[ "$rc" = 2 ] || bad "a bad credential: exit $rc, expected 2"
grep -qF "$work/creds/hpfilld.conf (credential):3" "$work/err" || bad "the message does not name the credential: $(cat "$work/err")"
[ "$(nr)" = 0 ] || bad "a bad credential changed node0 to $(nr) pages"
[ ! -e "$work/m/run/hpfilld/state" ] || bad "a bad credential wrote the state: $(cat "$work/m/run/hpfilld/state")"
echo "ok: a bad credential refused: $(head -n 1 "$work/err")"
passed
