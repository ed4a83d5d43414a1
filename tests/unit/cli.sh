#!/bin/sh
# SPDX-License-Identifier: MIT
# What a person reads first: --version with the features built in (FEATURES, from meson), a
# pointer to --help after every kind of usage error (exit status 2), and, with nothing
# configured, the files looked in. Nothing here touches or reads the host: no fill, --root in a
# temp dir (a fake machine of fake-tree.sh where a command needs one).
set -eu
: "${HPFILLD:?}" "${FEATURES:?}" "${VERSION:?}"
. "$(dirname "$0")/fake-tree.sh"
work_dir

"$HPFILLD" --version >"$work/out"
[ "$(sed -n 1p "$work/out")" = "hpfilld $VERSION" ] || bad "--version line 1: '$(sed -n 1p "$work/out")'"
[ "$(sed -n 2p "$work/out")" = "$FEATURES" ] || bad "--version line 2: '$(sed -n 2p "$work/out")', built with '$FEATURES'"
echo "ok: --version: $(tr '\n' ' ' <"$work/out")"

# usage ARGS...: exit status 2, the last line a pointer to the right --help
usage() {
        rc=0
        "$HPFILLD" "$@" >"$work/out" 2>"$work/err" || rc=$?
        case $1 in status | bench) help="hpfilld $1 --help" ;; *) help="hpfilld --help" ;; esac
        if [ "$rc" != 2 ]; then
                bad "'$*' exited $rc, expected 2"
        elif [ "$(tail -n 1 "$work/err")" != "hpfilld: Try '$help' for more information." ]; then
                bad "'$*': the last line is '$(tail -n 1 "$work/err")'"
        else
                echo "ok: '$*': $(head -n 1 "$work/err")"
        fi
}
usage --bogus
# a mistyped command: the nearest one named
usage stauts
grep -qxF "hpfilld: unknown command 'stauts'; did you mean 'hpfilld status'?" "$work/err" ||
        bad "'hpfilld stauts' suggests no command: $(head -n 1 "$work/err")"
# every command of the table, reload too (it was missing from --help and from the suggestions)
usage relaod
grep -qxF "hpfilld: unknown command 'relaod'; did you mean 'hpfilld reload'?" "$work/err" ||
        bad "'hpfilld relaod' suggests no command: $(head -n 1 "$work/err")"
"$HPFILLD" --help | grep -q "^ *hpfilld reload " || bad "--help lists no reload: $("$HPFILLD" --help | head -n 12)"
usage --pool
usage --pool 2M:lots
usage --mode fast
usage --shrink=yes
usage --once extra
usage --metrics-file relative.prom
usage --release 'no/name'
usage status --format=yaml
usage status --bogus
usage status --json --kubelet
usage status --kubelet --format=prometheus
usage bench --runs 0
usage bench --bogus

# nothing configured: the files it looked in (under --root), exit 0
mkdir -p "$work/root/etc"
rc=0
"$HPFILLD" --once --dry-run --root "$work/root" >"$work/out" 2>"$work/err" || rc=$?
want="hpfilld: No pools configured in $work/root/etc/hpfilld.conf, *.conf in $work/root/usr/lib/hpfilld.conf.d, $work/root/run/hpfilld.conf.d, $work/root/etc/hpfilld.conf.d, the kernel command line and the options, nothing to do"
[ "$rc" = 0 ] && [ "$(cat "$work/err")" = "$want" ] || bad "nothing configured: exit $rc, '$(cat "$work/err")'"
# the daemon says it at notice level before it idles (here it stops after: no sys or proc in the
# root, which is an error of its own)
timeout 10 "$HPFILLD" --root "$work/root" >"$work/out" 2>"$work/err" || true
want="hpfilld: No pools configured in $work/root/etc/hpfilld.conf, *.conf in $work/root/usr/lib/hpfilld.conf.d, $work/root/run/hpfilld.conf.d, $work/root/etc/hpfilld.conf.d, the kernel command line and the options: idle until reloaded"
[ "$(head -n 1 "$work/err")" = "$want" ] || bad "the bare daemon with nothing configured: '$(head -n 1 "$work/err")'"
# (how often the daemon reads its configuration: tests/unit/config-once.sh, which needs strace)
rc=0
"$HPFILLD" --once --config "$work/root/etc/none.conf" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || bad "--config of a missing file exited $rc"
printf '# nothing\n' >"$work/empty.conf"
"$HPFILLD" --once --dry-run --root "$work/root" --config "$work/empty.conf" 2>"$work/err"
grep -qx "hpfilld: No pools configured in $work/empty.conf, the kernel command line and the options, nothing to do" "$work/err" ||
        bad "--config with no pools: '$(cat "$work/err")'"
echo "ok: nothing configured: $(cat "$work/err")"

# a kernel without NUMA (no node directory) is no error: a fill and status say nothing of it
fake_machine "$work/flat" 1 4096 2048
rm -rf "$work/flat/sys/devices/system/node"
"$HPFILLD" --once -q --pool 2M:8 --root "$work/flat" >"$work/out" 2>"$work/err" || bad "--once on a flat machine: $(cat "$work/err")"
[ "$(cat "$work/flat/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")" = 8 ] || bad "the flat machine's pool: $(cat "$work/flat/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")"
"$HPFILLD" status --root "$work/flat" >"$work/out" 2>"$work/err" || bad "status on a flat machine: $(cat "$work/err")"
[ -s "$work/err" ] && bad "status on a flat machine warns: $(cat "$work/err")"
echo "ok: a machine without NUMA"

# counts in words: one pool, not "1 pool(s)"
"$HPFILLD" --check-config --root "$work/flat" --pool 2M:8 >"$work/out" 2>"$work/err" || bad "--check-config: $(cat "$work/err")"
grep -qx "hpfilld: The configuration is good: 1 pool, 0 reservations planned on this machine" "$work/err" ||
        bad "--check-config of one pool: $(cat "$work/err")"

# the README's Monitoring section: its configuration is valid, and its command works
if [ -n "${SOURCE_ROOT:-}" ]; then
        fake_machine "$work/machine" 1 4096
        sed -n '/^## Monitoring/,/^## /p' "$SOURCE_ROOT/README.md" | sed -n '/^```ini$/,/^```$/p' | sed '1d;$d' >"$work/metrics.conf"
        grep -q '^MetricsFile=/' "$work/metrics.conf" || bad "no MetricsFile= example in the README's Monitoring section"
        # its directory is the host's, even under --root, and a build root has none: one of the test's own
        mkdir -m 0755 "$work/node-exporter"
        sed -i "s|^MetricsFile=/var/lib/prometheus/node-exporter/|MetricsFile=$work/node-exporter/|" "$work/metrics.conf"
        "$HPFILLD" --once --dry-run --root "$work/machine" --config "$work/metrics.conf" 2>"$work/err" ||
                bad "the README's metrics.conf: $(cat "$work/err")"
        cmd=$(sed -n '/^## Monitoring/,/^## /p' "$SOURCE_ROOT/README.md" | sed -n 's/^\(hpfilld status --format=prometheus | promtool check metrics\) .*/\1/p')
        [ -n "$cmd" ] || bad "no status | promtool command in the README's Monitoring section"
        if command -v promtool >/dev/null && [ -n "$cmd" ]; then
                # hpfilld as the command names it, on the fake machine
                mkdir -p "$work/bin"
                printf '#!/bin/sh\nexec "%s" "$@" --root "%s"\n' "$HPFILLD" "$work/machine" >"$work/bin/hpfilld"
                chmod +x "$work/bin/hpfilld"
                PATH=$work/bin:$PATH sh -c "$cmd" || bad "the README's '$cmd' failed"
        fi
        echo "ok: the README's Monitoring example and command"
fi
# --root is every command's alike, parsed once: anywhere on the line (before the command too),
# --root=DIR the same, the last one counts; without a directory, exit 2 and the hint
for line in "status --root $work/flat" "--root $work/flat status" "status --root=$work/flat" \
        "status --root /nonexistent --root $work/flat"; do
        rc=0
        # shellcheck disable=SC2086
        "$HPFILLD" $line >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = 0 ] && grep -q "^2M " "$work/out" || bad "hpfilld $line: exit $rc: $(cat "$work/out" "$work/err")"
done
for cmd in status give-back claim unclaim reload bench --once; do
        rc=0
        "$HPFILLD" $cmd --root >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = 2 ] && grep -qx "hpfilld: option '--root' needs a value" "$work/err" ||
                bad "hpfilld $cmd --root: exit $rc, expected 2: $(cat "$work/err")"
done
rc=0
"$HPFILLD" status --root "$work/none" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q "^hpfilld: --root '$work/none': No such file or directory" "$work/err" ||
        bad "status --root of nothing: exit $rc: $(cat "$work/err")"
echo "ok: --root taken once for every command, anywhere on the line"
passed
