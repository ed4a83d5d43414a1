#!/bin/sh
# SPDX-License-Identifier: MIT
# --metrics-file and MetricsFile= in a directory that others can write (a mode 1777 /tmp, a
# group-writable one), through a symbolic link or not there are bad input: refused before the
# fill, exit status 2 naming the option or the file and line, no page added and no file
# written. Only --pools-only (an initramfs, without the real root's directories) lets a missing
# directory be: the fill stands and the write warns.
set -eu
: "${HPFILLD:?}"
. "$(dirname "$0")/fake-tree.sh"
need_fake_kernel
work_dir
fake_machine "$work/m" 1 4096 2048
pool=$work/m/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
mkdir -m 0755 "$work/good"
mkdir "$work/open" "$work/group"
chmod 1777 "$work/open"
chmod 0775 "$work/group"
ln -s good "$work/link"

# refused WHERE ARG...: exit 2, the refusal named after WHERE, nothing filled, no file
refused() {
        where=$1 before=$fails
        shift
        echo 0 >"$pool"
        run 2 --once --pool 2M:8 "$@"
        grep -q "^hpfilld: $where.*: refused" "$work/err" || bad "$*: the refusal not named: $(cat "$work/err")"
        [ "$(cat "$pool")" = 0 ] || bad "$*: the pool was filled: $(cat "$pool")"
        written=$(find "$work/open" "$work/group" "$work/good" -mindepth 1)
        [ -z "$written" ] || bad "$*: a file written: $written"
        [ "$fails" != "$before" ] || echo "ok: $*: $(head -n 1 "$work/err")"
}
refused "--metrics-file '$work/open/x.prom': $work/open/ belongs to .*, mode 1777" --metrics-file "$work/open/x.prom"
refused "--metrics-file '$work/group/x.prom': $work/group/ belongs to .*, mode 0775" --metrics-file "$work/group/x.prom"
refused "--metrics-file '$work/link/x.prom': $work/link/: a symbolic link on its way" --metrics-file "$work/link/x.prom"
# hpfilld's own directory: the file would take the state's place
mkdir -p "$work/m/run/hpfilld"
refused "MetricsFile=, --metrics-file $work/m/run/hpfilld/state: in $work/m/run/hpfilld, hpfilld's own directory" \
        --metrics-file "$work/m/run/hpfilld/state"
printf '[Fill]\nMetricsFile=%s\n' "$work/open/x.prom" >"$work/open.conf"
refused "$work/open.conf:2: MetricsFile=$work/open/x.prom: $work/open/ belongs to .*, mode 1777" --config "$work/open.conf"
# --check-config says so too
run 2 --check-config --config "$work/open.conf"
grep -q "^hpfilld: $work/open.conf:2: MetricsFile=" "$work/err" || bad "--check-config: $(cat "$work/err")"

# a directory of one's own, writable by no one else: filled and written
run 0 --once --pool 2M:8 --metrics-file "$work/good/x.prom"
[ "$(cat "$pool")" = 8 ] || bad "the fill beside a good --metrics-file: $(cat "$pool")"
grep -q '^hpfilld_pool_pages{size="2M",node="0"} 8$' "$work/good/x.prom" || bad "no metrics in $work/good/x.prom"
echo "ok: a good directory written"
rm "$work/good/x.prom"
: >"$work/plain"
# a directory not there, or a file where it should be: refused, from the option or the file
refused "MetricsFile=, --metrics-file $work/none/x.prom: $work/none/: No such file or directory" \
        --metrics-file "$work/none/x.prom"
refused "MetricsFile=, --metrics-file $work/plain/y.prom: $work/plain/: Not a directory" \
        --metrics-file "$work/plain/y.prom"
printf '[Fill]\nMetricsFile=%s\n' "$work/none/x.prom" >"$work/none.conf"
refused "MetricsFile=, --metrics-file $work/none/x.prom: $work/none/: No such file or directory" \
        --config "$work/none.conf"
run 2 --check-config --config "$work/none.conf"
grep -q "^hpfilld: MetricsFile=, --metrics-file $work/none/x.prom: .*: refused" "$work/err" ||
        bad "--check-config, a missing directory: $(cat "$work/err")"
# --pools-only (the initramfs): the fill stands, the write warns
echo 0 >"$pool"
run 0 --once --pools-only --pool 2M:8 --metrics-file "$work/none/x.prom"
[ "$(cat "$pool")" = 8 ] || bad "--pools-only beside a missing directory: $(cat "$pool")"
grep -q "Cannot write the metrics: $work/none/: No such file or directory, ignoring" "$work/err" ||
        bad "--pools-only, a missing directory: $(cat "$work/err")"
# a claim (a VM's start, the libvirt hook's) reads MetricsFile= too: the claim stands, the write warns
mkdir -p "$work/m/etc"
printf '[Fill]\nMetricsFile=%s\n' "$work/none/x.prom" >"$work/m/etc/hpfilld.conf"
echo 0 >"$pool"
run 0 claim vm --pool 2M:4
[ "$(cat "$pool")" = 4 ] || bad "a claim beside a missing metrics directory: the pool holds $(cat "$pool")"
grep -q "Cannot write the metrics: $work/none/: No such file or directory, ignoring" "$work/err" ||
        bad "a claim, a missing metrics directory: $(cat "$work/err")"
rm "$work/m/etc/hpfilld.conf"
echo "ok: a missing directory refused, but for --pools-only and a claim (a warning)"
passed
