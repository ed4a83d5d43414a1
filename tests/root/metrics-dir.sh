#!/bin/bash
# SPDX-License-Identifier: MIT
# MetricsFile= through a directory someone else can swap: Debian's layout (/var/lib/prometheus
# owned by prometheus, node-exporter/ below it root's), copied under the test's directory, with
# the prometheus user (or nobody) as the neighbour. Whether node-exporter/ is swapped for a link
# (to a directory of root's outside) or for a directory of the neighbour's, the run is refused
# before the fill (exit 2, bad input), naming the directory, and writes no file through it (the
# same check when the file is written keeps to that during a fill); the real /var/lib/prometheus/node-exporter
# keeps working, its file readable by the prometheus user. Fills of the empty 2 MiB pool to
# nothing (nothing changes), under --root with the host's sys and proc, so that the fill record
# stays in the test's own run/hpfilld.
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
user=prometheus
id "$user" >/dev/null 2>&1 || user=nobody
group=$(id -gn "$user")

root=$WORK/root
mkdir -p "$root/sys" "$root/proc"
mount --bind /sys "$root/sys" || { echo "SKIP: cannot bind-mount"; exit 77; }
EXTRA_CLEANUP='umount "$root/sys"; umount "$root/proc" 2>/dev/null; [ -z "$real_prom" ] || rm -f "$real_prom"'
mount --bind /proc "$root/proc"
real_prom=""
pool2m_set 0
as_user() { setpriv --reuid="$user" --regid="$group" --clear-groups "$@"; }
fill_to() { # PATH: a fill that changes nothing (the pool at what others hold: lib.sh), its metrics to PATH
        expect_rc 0 "$HPFILLD" --once --root "$root" --pool "2M:$BASE_ALL" --shrink --metrics-file "$1"
}
refused_to() { # PATH: the same, refused (exit 2) for PATH's directory
        expect_rc 2 "$HPFILLD" --once --root "$root" --pool 2M:0 --shrink --metrics-file "$1"
}

# Debian's layout: the parent the user's, node-exporter/ root's; the way there searchable
chmod 0755 "$WORK"
lib=$WORK/lib/prometheus
mkdir -p "$lib/node-exporter" "$WORK/elsewhere"
chown "$user:$group" "$lib"
chmod 0755 "$WORK/lib" "$lib" "$lib/node-exporter" "$WORK/elsewhere"
prom=$lib/node-exporter/hpfilld.prom

fill_to "$prom"
[ -f "$prom" ] || fail "the fill wrote no $prom: $(cat "$WORK/err")"
as_user cat "$prom" >/dev/null || fail "$user cannot read $prom"
echo "ok: the layout as Debian has it: $prom written"

# the neighbour swaps node-exporter/ for a link to a directory of root's elsewhere
as_user mv "$lib/node-exporter" "$lib/node-exporter.old"
as_user ln -s "$WORK/elsewhere" "$lib/node-exporter"
refused_to "$prom"
[ -z "$(ls -A "$WORK/elsewhere")" ] || fail "files written through the link: $(ls -A "$WORK/elsewhere")"
expect_in "$WORK/err" "--metrics-file '$prom': $lib/node-exporter/: a symbolic link on its way: refused"
echo "ok: node-exporter/ swapped for a link: $(cat "$WORK/err")"

# ... or for a directory of its own
as_user rm "$lib/node-exporter"
as_user mkdir -m 0755 "$lib/node-exporter"
refused_to "$prom"
[ -z "$(ls -A "$lib/node-exporter")" ] || fail "files written into $user's directory: $(ls -A "$lib/node-exporter")"
expect_in "$WORK/err" "--metrics-file '$prom': $lib/node-exporter/ belongs to user '$user' \\(uid [0-9]+\\), mode 0755: refused"
echo "ok: node-exporter/ swapped for the user's own: $(cat "$WORK/err")"

# a directory of root's that others can write is refused as well
mkdir -m 0777 "$WORK/open"
chmod 0777 "$WORK/open"
refused_to "$WORK/open/hpfilld.prom"
[ -z "$(ls -A "$WORK/open")" ] || fail "files written into a directory anyone can write"
expect_in "$WORK/err" "belongs to user 'root' \\(uid 0\\), mode 0777: refused"
echo "ok: a directory others can write: $(cat "$WORK/err")"

# the real directory of Debian's prometheus-node-exporter, where installed
real=/var/lib/prometheus/node-exporter
if [ -d "$real" ]; then
        real_prom=$real/hpfilld-test-$$.prom
        fill_to "$real_prom"
        [ -f "$real_prom" ] || fail "the fill wrote no $real_prom: $(cat "$WORK/err")"
        id prometheus >/dev/null 2>&1 && { setpriv --reuid=prometheus --regid=prometheus --clear-groups cat "$real_prom" >/dev/null ||
                fail "prometheus cannot read $real_prom"; }
        rm -f "$real_prom"
        echo "ok: $real (its owner $(stat -c %U "$real"), the parent's $(stat -c %U "$(dirname "$real")")) written"
else
        echo "no $real here (prometheus-node-exporter not installed): that case not run"
fi
echo PASS
