#!/bin/bash
# SPDX-License-Identifier: MIT
# The host's state survives the root tests that run in a mount namespace of their own: with a
# claim of the host's in /run/hpfilld/state (its pages in the pool), each such test (every
# tests/root/*.sh with OWN_MOUNT_NS=1 but libvirt.sh, which takes 90 s) runs to its end, and
# then, seen from the host's namespace, the state is the same file (its bytes) and the claim
# gives its pages back. Inside its namespace a test's own check of /run/hpfilld sees whatever is
# mounted there: a state put back into a tmpfs of the test's own went with the namespace, and
# README's `give-back` after the test suite found nothing to give back (root-state-model did that).
. "$(dirname "$0")/lib.sh"
need_test_hooks

# a claim of the host's: 4 pages on top of the pool, in the host's state
expect_rc 0 "$HPFILLD" claim kept-by-host --pool "2M:node$first=4"
EXTRA_CLEANUP="\"\$HPFILLD\" unclaim kept-by-host >/dev/null 2>&1 || true${EXTRA_CLEANUP:+; $EXTRA_CLEANUP}"
cp "$STATE/state" "$WORK/state.host"
nr=$(cat "$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages")

n=0
for t in "$SOURCE_ROOT"/tests/root/*.sh; do
        grep -qx 'OWN_MOUNT_NS=1' "$t" || continue
        name=${t##*/}
        [ "$name" != libvirt.sh ] || continue
        rc=0
        STATE_MODEL_SEQUENCES=20 "$t" >"$WORK/out" 2>&1 || rc=$?
        [ "$rc" = 0 ] || [ "$rc" = 77 ] || { cat "$WORK/out"; fail "${name%.sh}: exit $rc"; }
        cmp -s "$STATE/state" "$WORK/state.host" ||
                { diff "$WORK/state.host" "$STATE/state" || true; fail "${name%.sh} left the host's state other than it was (above)"; }
        [ "$(cat "$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages")" = "$nr" ] ||
                fail "${name%.sh} left node$first's 2M pool at $(cat "$NODES/node$first/hugepages/hugepages-2048kB/nr_hugepages"), not $nr"
        echo "ok: ${name%.sh} (exit $rc): the host's state as it was"
        n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "only $n tests in a mount namespace of their own found in $SOURCE_ROOT/tests/root"

# and it is still the host's claim: its pages go back with it
expect_rc 0 "$HPFILLD" unclaim kept-by-host
expect_in "$WORK/out" "4 pages given back"
echo PASS
