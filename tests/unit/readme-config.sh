#!/bin/bash
# SPDX-License-Identifier: MIT
# Every ```ini block of the README parses with the real binary: hpfilld --once --dry-run
# --config BLOCK exits 0 and names no line of it as bad. (A dry run changes nothing; a
# reservation's owner or mount that is not on this machine is only said.)
set -eu
readme=$1 hpfilld=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk -v dir="$work" '
        /^```ini$/ { n++; file = sprintf("%s/block%d.conf", dir, n); inside = 1; next }
        /^```$/ && inside { inside = 0; close(file); next }
        inside { print > file }
' "$readme"
set -- "$work"/block*.conf
[ -e "$1" ] || { echo "FAIL: no \`\`\`ini block in $readme"; exit 1; }
for f; do
        if ! "$hpfilld" --once --dry-run --config "$f" >"$work/out" 2>"$work/err"; then
                echo "FAIL: README's $(basename "$f" .conf) is rejected:"
                sed "s|$work/||" "$work/err"
                exit 1
        fi
        # what is not on this machine (the example's user, a hugetlbfs mount) is said, nothing else
        if grep "$f:[0-9]" "$work/err" | grep -qv ": this reservation is skipped$"; then
                echo "FAIL: README's $(basename "$f" .conf) has bad lines:"
                cat "$work/err"
                exit 1
        fi
        echo "ok   $(basename "$f" .conf): $(grep -c . "$f") lines"
done
