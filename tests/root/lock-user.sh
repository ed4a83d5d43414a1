#!/bin/bash
# SPDX-License-Identifier: MIT
# The host lock is no user's to hold: /run/hpfilld/host.lock is root's, mode 0600, so nobody
# cannot open it for flock(); the older name (/run/hpfilld/lock, 0644 from some versions), held
# by nobody, is not looked at and the fill goes on; a host.lock of another mode or owner is
# refused and left as it is (never replaced: that would be two fills at once); status names the
# real holder.
. "$(dirname "$0")/lib.sh"

id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
command -v flock >/dev/null || { echo "SKIP: no flock(1)"; exit 77; }
L=/run/hpfilld/host.lock
OLD=/run/hpfilld/lock
FIFO=$WORK/held
mkfifo "$FIFO"
chmod 755 "$WORK"
chmod 666 "$FIFO"
EXTRA_CLEANUP='stop_holder; [ -f $L ] && chown root:root $L && chmod 600 $L; [ -n "${made_old:-}" ] && rm -f $OLD'
# hold a lock file (L unless given): flock(1) -o holds the lock itself (its child, a sleep, holds nothing); $HOLDER is
# flock's pid (the one /proc/locks names), $CHILD the sleep's, said through the FIFO
hold() {
        "$@" flock -o "${HOLD:-$L}" sh -c "echo \$\$ >$FIFO; exec sleep 600" &
        HOLDER=$!
        read -r CHILD <"$FIFO"
        [ -n "$CHILD" ] || fail "no holder"
}
stop_holder() {
        [ -n "${HOLDER:-}" ] || return 0
        kill "$CHILD" "$HOLDER" 2>/dev/null || true
        wait "$HOLDER" 2>/dev/null || true
        HOLDER=
}
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

pool2m_set 0
# the targets on top of the pages others hold (BASE, lib.sh)
T20=$((BASE + 20)) T30=$((BASE + 30))
expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=$((BASE + 10))"
[ "$(stat -c '%u %a %F' $L)" = "0 600 regular file" ] || fail "the lock file: $(stat -c '%u %a %F' $L)"
# nobody cannot open it, so cannot hold it
if as_nobody flock -n $L true 2>"$WORK/err"; then fail "nobody took the host lock"; fi
expect_in "$WORK/err" "Permission denied"

# an older hpfilld's lock file (0644), held by nobody: not looked at, the fill goes on
if [ ! -e $OLD ]; then
        made_old=1
        : >$OLD
fi
chmod 644 $OLD
HOLD=$OLD hold setpriv --reuid=65534 --regid=65534 --clear-groups
expect_rc 0 "$HPFILLD" --once --lock-timeout 2 --pool "2M:node$first=$T20"
[ "$(node_nr "$first" 2048)" = $T20 ] || fail "node$first holds $(node_nr "$first" 2048) pages, expected 20"
stop_holder
[ -n "${made_old:-}" ] && rm -f $OLD

# a host.lock of another mode (anyone may hold a descriptor of it): refused, kept, nothing changed
old=$(stat -c %i $L)
chmod 644 $L
expect_rc 1 "$HPFILLD" --once --pool "2M:node$first=$T30"
expect_in "$WORK/err" "Cannot open /run/hpfilld/host.lock: not a file of this user's, mode 0600: refused"
[ "$(node_nr "$first" 2048)" = $T20 ] || fail "the refused fill changed node$first to $(node_nr "$first" 2048)"
[ "$(stat -c '%i %a' $L)" = "$old 644" ] || fail "the 0644 host.lock was replaced or changed"
chmod 600 $L

# status names who really holds it: here flock(1), which is no fill
hold env
expect_rc 0 "$HPFILLD" status
expect_in "$WORK/out" "^The host lock is held by pid $HOLDER \(flock, not a fill that said what it does\)$"
# nobody may not read the lock file: what the holder said of itself is root's to know
expect_rc 0 as_nobody "$HPFILLD" status
expect_in "$WORK/out" "^The host lock is held by pid $HOLDER \(flock, what it does only root may read\)$"
expect_rc 1 "$HPFILLD" --once --lock-timeout 1 --pool "2M:node$first=$T30"
expect_in "$WORK/err" "Another fill is running: pid $HOLDER \(flock, not a fill that said what it does\)"
stop_holder

# a lock file of another owner: refused, nothing changed
chown nobody $L
expect_rc 1 "$HPFILLD" --once --pool "2M:node$first=$T30"
expect_in "$WORK/err" "Cannot open /run/hpfilld/host.lock: (Permission denied|not a file of this user's, mode 0600: refused)"
[ "$(node_nr "$first" 2048)" = $T20 ] || fail "the refused fill changed node$first to $(node_nr "$first" 2048)"
chown root $L
echo PASS
