#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/vm-cell.sh, the matrix's VM cells, at a tiny size: one guest of Debian's kernel with
# init_on_alloc=1 times every tool once, each leaves the guest's pool at the size asked (the
# guest checks), and its lines are what bench/matrix.py reads. No timing is asserted.
set -eu
. "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
out=$(mktemp /tmp/hpfilld-vm-bench-cell.XXXXXX)
trap 'rm -f "$out"' EXIT
rc=0
# a guest that hangs is stopped by the boot's own time limit (the VM tests' default, not the
# bench's 900 s), before meson's, so that its console is shown
HPFILLD_VM_TIMEOUT=${HPFILLD_VM_TIMEOUT:-240} VM_EXIT=${VM_EXIT:-} \
        "$SOURCE_ROOT/bench/vm-cell.sh" "init_on_alloc=1" 8 1 0 1,2 >"$out" || rc=$?
cat "$out"
[ "$rc" = 0 ] || { [ "$rc" = 77 ] && exit 77; fail "bench/vm-cell.sh exited $rc"; }
tools="echo sysfs fault-1 fault-2 auto"
command -v hugeadm >/dev/null && tools="$tools hugeadm"
for t in $tools; do
        grep -Eq "^time $t [0-9]+\.[0-9]{3}$" "$out" || fail "no time for $t"
done
grep -Eq "^pick 2M pool: 8/8 pages on 1 node in .*\((sysfs|fault), " "$out" || fail "no pick line from auto's report"
[ "$(grep -c '^time ' "$out")" = "$(echo $tools | wc -w)" ] || fail "not one time per tool"
echo PASS
