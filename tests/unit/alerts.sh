#!/bin/sh
# SPDX-License-Identifier: MIT
# The alert rules the man page documents (doc/hpfilld-alerts.yml): valid for Prometheus
# (promtool check rules), and they fire, and only then, on the series they are about (promtool
# test rules with doc/hpfilld-alerts-test.yml). Skips without promtool (package prometheus).
set -eu
doc=${SOURCE_ROOT:?}/doc
command -v promtool >/dev/null || { echo "SKIP: no promtool (package prometheus)"; exit 77; }
promtool check rules "$doc/hpfilld-alerts.yml"
cd "$doc"
promtool test rules hpfilld-alerts-test.yml
# the copy in hpfilld(8): the block from "groups:" to the end of the example (indented by a tab
# there, under status)
sed -n '/^\t*Two alert rules/,/^# /p' "$SOURCE_ROOT/man/hpfilld.8.scd" | sed 's/^\t//' |
        sed -n '/^groups:$/,/^```$/p' | sed '$d' >"${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml"
trap 'rm -f "${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml"' EXIT
grep -q 'alert: HugePagePoolShort' "${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml" || { echo "FAIL: no alert rules found in hpfilld.8.scd"; exit 1; }
promtool check rules "${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml"

# Driven by a pool given back: the daemon fills a fake tree (nothing of the host's) with
# MetricsFile= refreshed every second (MetricsInterval=1); the pool is then given back behind
# its back, and the file follows. The series of both files, as a scrape every minute would see
# them (full for 10 minutes, then given back), go to promtool: HugePagePoolShort stays quiet
# while the pool is full and fires 10 minutes after it was given back, with the shortfall.
: "${HPFILLD:?}"
w=$(mktemp -d)
trap 'rm -f "${TMPDIR:-/tmp}/hpfilld-man-alerts.$$.yml"; [ -z "${daemon:-}" ] || kill "$daemon" 2>/dev/null; rm -rf "$w"' EXIT
t=$w/root
p=$t/sys/devices/system/node/node0/hugepages/hugepages-2048kB
g=$t/sys/kernel/mm/hugepages/hugepages-2048kB
mkdir -p "$p" "$g" "$t/proc" "$t/etc/hpfilld.conf.d"
echo 0-1 >"$t/sys/devices/system/node/node0/cpulist"
printf 'Node 0 MemTotal:       4194304 kB\nNode 0 MemFree:        4000000 kB\n' >"$t/sys/devices/system/node/node0/meminfo"
echo 10 >"$t/sys/devices/system/node/node0/distance"
: >"$t/sys/devices/system/node/node0/compact"
for f in nr_hugepages free_hugepages surplus_hugepages; do echo 0 >"$p/$f"; done
for f in nr_hugepages free_hugepages surplus_hugepages resv_hugepages nr_overcommit_hugepages; do echo 0 >"$g/$f"; done
for f in online has_memory; do echo 0 >"$t/sys/devices/system/node/$f"; done
echo 0-1 >"$t/sys/devices/system/node/has_cpu"
: >"$t/proc/cmdline"
printf '[Fill]\nMode=sysfs\nMetricsFile=%s/hpfilld.prom\nMetricsInterval=1\n[Pool]\nPageSize=2M\nAmount=node0=64\n' "$w" \
        >"$t/etc/hpfilld.conf"
"$HPFILLD" --root "$t" >"$w/daemon.log" 2>&1 &
daemon=$!
# wait_pages N: until the file says node0 holds N pages (at most 15 s)
wait_pages() {
        for _ in $(seq 150); do
                grep -qx "hpfilld_pool_pages{size=\"2M\",node=\"0\"} $1" "$w/hpfilld.prom" 2>/dev/null && return 0
                kill -0 "$daemon" 2>/dev/null || { cat "$w/daemon.log"; echo "FAIL: the daemon exited"; exit 1; }
                sleep 0.1
        done
        cat "$w/daemon.log" "$w/hpfilld.prom"
        echo "FAIL: the metrics file did not come to $1 pages within 15 s"
        exit 1
}
wait_pages 64
cp "$w/hpfilld.prom" "$w/full.prom"
echo 0 >"$p/nr_hugepages"
echo 0 >"$g/nr_hugepages"
wait_pages 0
cp "$w/hpfilld.prom" "$w/given.prom"
kill "$daemon"
wait "$daemon" || { cat "$w/daemon.log"; echo "FAIL: the daemon did not stop cleanly"; exit 1; }
daemon=
# series NAME: '{size="2M",node="0"} FULL GIVEN' from the two files
series() {
        full=$(awk -v s="$1{size=\"2M\",node=\"0\"}" '$1 == s { print $2 }' "$w/full.prom")
        given=$(awk -v s="$1{size=\"2M\",node=\"0\"}" '$1 == s { print $2 }' "$w/given.prom")
        [ -n "$full" ] && [ -n "$given" ] || { echo "FAIL: no $1 in the daemon's files"; exit 1; }
        echo "$full $given"
}
set -- $(series hpfilld_pool_target_pages)
target_full=$1 target_given=$2
set -- $(series hpfilld_pool_pages)
pages_full=$1 pages_given=$2
[ "$pages_full" = 64 ] && [ "$pages_given" = 0 ] && [ "$target_given" = 64 ] ||
        { echo "FAIL: pages $pages_full then $pages_given, target $target_full then $target_given"; exit 1; }
cat >"$w/test.yml" <<YML
rule_files:
  - $doc/hpfilld-alerts.yml
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'hpfilld_pool_target_pages{instance="h1",size="2M",node="0"}'
        values: '${target_full}x9 ${target_given}x20'
      - series: 'hpfilld_pool_pages{instance="h1",size="2M",node="0"}'
        values: '${pages_full}x9 ${pages_given}x20'
    alert_rule_test:
      - eval_time: 9m
        alertname: HugePagePoolShort
        exp_alerts: []
      - eval_time: 15m
        alertname: HugePagePoolShort
        exp_alerts: []
      - eval_time: 25m
        alertname: HugePagePoolShort
        exp_alerts:
          - exp_labels: {severity: warning, instance: h1, size: 2M, node: "0"}
            exp_annotations:
              summary: "h1: 2M pool on node 0 is 64 pages short of its target"
              description: "hpfilld's owners (the configuration, one-off runs, the claims) ask more huge pages of the pool than it holds. \`hpfilld status\` shows the targets and the boot parameters that would get them."
YML
promtool test rules "$w/test.yml"
echo "ok: HugePagePoolShort fires on the daemon's series 10 minutes after the pool was given back"
