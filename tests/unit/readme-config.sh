#!/bin/bash
# SPDX-License-Identifier: MIT
# Every ```ini block of the README parses with the real binary: hpfilld --once --dry-run
# --config BLOCK on a fake machine sized for the examples (two nodes of 16 GiB, a hugetlbfs mount
# of 2M pages at /dev/hugepages) exits 0 and names no line of it as bad (check_config in
# fake-tree.sh). Nothing of the host's is read: the same answer on any machine (a MetricsFile=,
# whose directory is always the host's, even under --root, is moved to one of the test's own).
set -eu
readme=$1 hpfilld=$2
. "$(dirname "$0")/fake-tree.sh"
work_dir
fake_machine "$work/root" 2 16384
fake_mount "$work/root" /dev/hugepages 2M

awk -v dir="$work" '
        /^```ini$/ { n++; file = sprintf("%s/block%d.conf", dir, n); inside = 1; next }
        /^```$/ && inside { inside = 0; close(file); next }
        inside { sub("^MetricsFile=/var/lib/prometheus/node-exporter/", "MetricsFile=" dir "/metrics/"); print > file }
' "$readme"
mkdir -m 0755 "$work/metrics"
set -- "$work"/block*.conf
[ -e "$1" ] || { echo "FAIL: no \`\`\`ini block in $readme"; exit 1; }
for f; do
        check_config "$hpfilld" "$work/root" "$f" "$work" || { echo "FAIL: README's $(basename "$f" .conf) (above)"; exit 1; }
        echo "ok   $(basename "$f" .conf): $(grep -c . "$f") lines"
done
