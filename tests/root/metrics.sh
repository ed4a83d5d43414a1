#!/bin/bash
# SPDX-License-Identifier: MIT
# The metrics as a fleet consumes them: a real fill with MetricsFile= (and then --metrics-file)
# writes the exposition text atomically into a textfile directory; the real promtool accepts it
# and `hpfilld status --format=prometheus`; a real prometheus-node-exporter on 127.0.0.1 (a free
# port, its textfile collector on that directory) serves hpfilld's series with the values of the
# fill. Run under --root (the host's sys and proc bind-mounted) so that the fill record stays in
# the test's own run/hpfilld. Skips without promtool or prometheus-node-exporter.
. "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null || { echo "SKIP: no promtool (package prometheus)"; exit 77; }
exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[ -n "$exporter" ] || { echo "SKIP: no prometheus-node-exporter"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

pool2m_set 0

root=$WORK/root
textdir=$WORK/textfile
mkdir -p "$root/sys" "$root/proc" "$root/etc" "$textdir"
mount --bind /sys "$root/sys" || { echo "SKIP: cannot bind-mount"; exit 77; }
EXPORTER_PID=""
EXTRA_CLEANUP='[ -z "$EXPORTER_PID" ] || { kill "$EXPORTER_PID"; wait "$EXPORTER_PID"; }; umount "$root/sys"; umount "$root/proc" 2>/dev/null'
mount --bind /proc "$root/proc"

# value FILE SERIES: the value of the series (a whole line "SERIES VALUE") in FILE
value() {
        awk -v s="$2" '$1 == s { print $2; found = 1 } END { exit !found }' "$1" || { echo "--- $1"; cat "$1"; fail "no series $2 in $1"; }
}
expect_value() { # FILE SERIES WANT
        local got
        got=$(value "$1" "$2")
        [ "$got" = "$3" ] || { echo "--- $1"; cat "$1"; fail "$2 is '$got' in $1, expected $3"; }
}

### MetricsFile= in [Fill], a --once fill

# the targets on top of the pages others hold (BASE, lib.sh)
printf '[Fill]\nMetricsFile=%s/hpfilld.prom\n\n[Pool]\nPageSize=2M\nAmount=node%s=%sM\n' "$textdir" "$first" $(((BASE + 20) * 2)) \
        >"$root/etc/hpfilld.conf"
expect_rc 0 "$HPFILLD" --once --root "$root"
prom=$textdir/hpfilld.prom
[ -f "$prom" ] || fail "the fill wrote no $prom"
[ "$(stat -c %a "$prom")" = 644 ] || fail "$prom has mode $(stat -c %a "$prom"), expected 644"
[ "$(ls -A "$textdir")" = hpfilld.prom ] || fail "the textfile directory holds more than hpfilld.prom: $(ls -A "$textdir")"
promtool check metrics <"$prom" || fail "promtool check metrics rejects $prom"
expect_value "$prom" "hpfilld_pool_pages{size=\"2M\",node=\"$first\"}" $((BASE + 20))
expect_value "$prom" "hpfilld_pool_target_pages{size=\"2M\",node=\"$first\"}" $((BASE + 20))
expect_value "$prom" hpfilld_last_fill_exit_status 0
expect_value "$prom" hpfilld_last_fill_success 1
expect_value "$prom" hpfilld_fills_total 1
expect_value "$prom" "hpfilld_last_fill_pool_met{size=\"2M\"}" 1
fill_time=$(value "$prom" hpfilld_last_fill_timestamp_seconds)
now=$(date +%s)
[ "${fill_time%.*}" -le "$now" ] && [ "${fill_time%.*}" -ge $((now - 600)) ] ||
        fail "hpfilld_last_fill_timestamp_seconds is $fill_time, now is $now"
echo "ok: MetricsFile= written by --once: $(grep -vc '^#' "$prom") series, promtool check metrics passes"

### --metrics-file wins over MetricsFile=; a second fill counts on; status shows the same

expect_rc 0 "$HPFILLD" --once --root "$root" --pool "2M:node$first=$((BASE + 30))" --metrics-file "$textdir/second.prom"
expect_value "$textdir/second.prom" "hpfilld_pool_pages{size=\"2M\",node=\"$first\"}" $((BASE + 30))
expect_value "$textdir/second.prom" hpfilld_fills_total 2
expect_value "$prom" "hpfilld_pool_pages{size=\"2M\",node=\"$first\"}" $((BASE + 20))
rm "$textdir/second.prom"
expect_rc 0 "$HPFILLD" status --root "$root" --format=prometheus
promtool check metrics <"$WORK/out" || fail "promtool check metrics rejects status --format=prometheus"
expect_value "$WORK/out" "hpfilld_pool_target_pages{size=\"2M\",node=\"$first\"}" $((BASE + 30))
expect_value "$WORK/out" hpfilld_fills_total 2
echo "ok: --metrics-file, the counters go on, status --format=prometheus passes promtool"

# a bad path is a usage error that changes nothing
before=$(snapshot)
expect_rc 2 "$HPFILLD" --once --root "$root" --pool "2M:node$first=40" --metrics-file relative.prom
expect_in "$WORK/err" "--metrics-file 'relative.prom'"
[ "$(snapshot)" = "$before" ] || fail "a bad --metrics-file changed the pools"

### the daemon writes it after its first fill and after each reload

# wait_value FILE SERIES WANT: until FILE has SERIES at WANT (the daemon writes it when its fill
# is done), at most 30 s
wait_value() {
        local i
        for i in $(seq 300); do
                [ "$(value "$1" "$2" 2>/dev/null)" = "$3" ] && return 0
                kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon exited"
                sleep 0.1
        done
        fail "$2 did not become $3 in $1 within 30 s"
}
mkdir -p "$root/etc/hpfilld.conf.d"
printf '[Fill]\nMetricsInterval=1\n' >"$root/etc/hpfilld.conf.d/interval.conf"
"$HPFILLD" --root "$root" --pool "2M:node$first=$((BASE + 34))" --metrics-file "$textdir/daemon.prom" >"$WORK/daemon.log" 2>&1 &
DAEMON_PID=$!
EXTRA_CLEANUP="kill \$DAEMON_PID 2>/dev/null; $EXTRA_CLEANUP"
wait_value "$textdir/daemon.prom" hpfilld_fills_total 3
expect_value "$textdir/daemon.prom" "hpfilld_pool_pages{size=\"2M\",node=\"$first\"}" $((BASE + 34))
# the file follows the pool between fills (MetricsInterval=): given back behind the daemon's
# back (to what others hold), then some pages added by hand; the target stays the last fill's
pages="hpfilld_pool_pages{size=\"2M\",node=\"$first\"}"
echo "$BASE" >"$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages"
wait_value "$textdir/daemon.prom" "$pages" "$BASE"
expect_value "$textdir/daemon.prom" "hpfilld_pool_target_pages{size=\"2M\",node=\"$first\"}" $((BASE + 34))
expect_value "$textdir/daemon.prom" hpfilld_fills_total 3
echo $((BASE + 12)) >"$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages"
wait_value "$textdir/daemon.prom" "$pages" $((BASE + 12))
promtool check metrics <"$textdir/daemon.prom" || fail "promtool check metrics rejects the refreshed file"
echo "ok: the daemon's file follows the pool given back ($BASE) and grown by hand ($((BASE + 12))) between fills"
kill -HUP "$DAEMON_PID"
wait_value "$textdir/daemon.prom" hpfilld_fills_total 4
promtool check metrics <"$textdir/daemon.prom" || fail "promtool check metrics rejects the daemon's file"
kill -TERM "$DAEMON_PID"
rc=0
wait "$DAEMON_PID" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/daemon.log"; fail "the daemon exited $rc on SIGTERM"; }
rm "$textdir/daemon.prom" "$root/etc/hpfilld.conf.d/interval.conf"
echo "ok: the daemon writes the file after its first fill and after a reload"

### a real node_exporter serves the file

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$textdir" >"$WORK/exporter.log" 2>&1 &
EXPORTER_PID=$!
# until it answers (it binds its port a moment after it starts), at most 30 s
for _ in $(seq 300); do
        curl -sf "http://127.0.0.1:$port/metrics" >"$WORK/scrape" 2>/dev/null && break
        kill -0 "$EXPORTER_PID" 2>/dev/null || { cat "$WORK/exporter.log"; fail "node_exporter exited"; }
        sleep 0.1
done
[ -s "$WORK/scrape" ] || { cat "$WORK/exporter.log"; fail "node_exporter did not answer on 127.0.0.1:$port"; }
expect_value "$WORK/scrape" node_textfile_scrape_error 0
# node_exporter sorts the labels
expect_value "$WORK/scrape" "hpfilld_pool_pages{node=\"$first\",size=\"2M\"}" $((BASE + 20))
expect_value "$WORK/scrape" "hpfilld_pool_target_pages{node=\"$first\",size=\"2M\"}" $((BASE + 20))
expect_value "$WORK/scrape" hpfilld_last_fill_success 1
expect_value "$WORK/scrape" hpfilld_fills_total 1
expect_in "$WORK/scrape" '^# TYPE hpfilld_fills_total counter$'
echo "ok: node_exporter $("$exporter" --version 2>&1 | head -n 1 | cut -d' ' -f3) on 127.0.0.1:$port serves $(grep -c '^hpfilld_' "$WORK/scrape") hpfilld series"
echo PASS
