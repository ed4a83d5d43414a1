#!/bin/sh
# SPDX-License-Identifier: MIT
# The daemon reads its configuration once at the start: main.c's check of it is what it runs on
# (a file changed between the check and a second read would run unchecked). Its opens counted by
# strace, on a root of its own with no sys or proc (the daemon stops after reading it). Skips
# (77) without strace, or where strace cannot trace (no ptrace in a container).
set -eu
: "${HPFILLD:?}"
. "$(dirname "$0")/fake-tree.sh"
command -v strace >/dev/null || { echo "SKIP: no strace (tools/setup.sh --test installs it)"; exit 77; }
work_dir
mkdir -p "$work/root/etc"
printf '[Fill]\n' >"$work/root/etc/hpfilld.conf"
timeout 10 strace -f -qq -e trace=openat,openat2 -o "$work/trace" "$HPFILLD" --root "$work/root" >/dev/null 2>&1 || true
grep -q 'openat' "$work/trace" 2>/dev/null || { echo "SKIP: strace traced nothing here: $(head -c 300 "$work/trace" 2>/dev/null)"; exit 77; }
n=$(grep -c 'etc/hpfilld.conf"' "$work/trace" || true)
[ "$n" = 1 ] || bad "the daemon opened its configuration $n times at the start, not once"
[ "$fails" = 0 ] && echo "ok: the daemon opened its configuration once"
passed
