#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/vm-startup.sh, the guest rows of bench/startup.py --vm, at a tiny size: one guest times
# each command once (hpfilld-initramfs's too where -Dstatic-initramfs=true built it), the fills
# leave the guest's pool at the size asked (the guest checks), and its lines are what
# bench/startup.py reads. No timing is asserted.
set -eu
. "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
out=$(mktemp /tmp/hpfilld-vm-bench-startup.XXXXXX)
trap 'rm -f "$out"' EXIT
tools="sh-true version once-nothing echo once-fill"
static=$(dirname "$HPFILLD")/hpfilld-initramfs
if [ -x "$static" ]; then
        export HPFILLD_STATIC=$static
        tools="$tools static-version static-once-nothing static-once-fill"
fi
rc=0
VM_EXIT=${VM_EXIT:-} "$SOURCE_ROOT/bench/vm-startup.sh" 1 8 >"$out" || rc=$?
cat "$out"
[ "$rc" = 0 ] || { [ "$rc" = 77 ] && exit 77; fail "bench/vm-startup.sh exited $rc"; }
for t in $tools; do
        grep -Eq "^time $t [0-9]+\.[0-9]{3}$" "$out" || fail "no time for $t"
done
[ "$(grep -c '^time ' "$out")" = "$(echo $tools | wc -w)" ] || fail "not one time per tool"
echo PASS
