#!/bin/bash
# SPDX-License-Identifier: MIT
# Progress as a person at a terminal sees it: `hpfilld --once` typed into a shell in a real
# terminal (tmux: send-keys), held mid-fill by the pause hook (HPFILLD_TEST_PAUSE_FIFO), shows
# one progress line per pool (capture-pane); once it goes on, the final screen has the report
# and no progress line. The same fill with standard error to a file writes no progress, while
# its ticks (-v's debug lines) show that it had the chance to. Skips without tmux.
. "$(dirname "$0")/lib.sh"
need_test_hooks

if ! command -v tmux >/dev/null; then
        # CI must not pass by skipping: tools/setup.sh --test installs it
        case ${CI:-} in "" | false | 0) echo "SKIP: no tmux (package tmux)"; exit 77 ;; esac
        fail "no tmux (package tmux; tools/setup.sh --test installs it)"
fi
pool2m_set 0

FIFO=$WORK/fifo
mkfifo "$FIFO"
TMUX_SOCK=hpfilld-test-$$
tmux_() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
EXTRA_CLEANUP='tmux_ kill-server 2>/dev/null'
screen() { tmux_ capture-pane -p -t t; }
# wait_screen ERE: until the screen has a line matching ERE, at most 20 s
wait_screen() {
        local i
        for i in $(seq 200); do
                screen >"$WORK/screen"
                grep -Eq -- "$1" "$WORK/screen" && return 0
                sleep 0.1
        done
        echo "--- screen"; cat "$WORK/screen"
        fail "no line matching '$1' on the terminal within 20 s"
}
# hold: waits (at most 20 s) until the fill is paused on the FIFO
hold() {
        timeout 20 cat "$FIFO" >"$WORK/paused" || fail "the fill did not pause"
        grep -qx paused "$WORK/paused" || fail "the pause hook wrote '$(cat "$WORK/paused")'"
}
release() { timeout 20 sh -c 'echo go >"$1"' sh "$FIFO" || fail "the fill did not take the FIFO back"; }

fill_env="HPFILLD_TEST_STEP_PAGES=2 HPFILLD_TEST_PAUSE_FIFO=$FIFO HPFILLD_TEST_PAUSE_AFTER_STEPS=3"
# (the target on top of the pages others hold: BASE, lib.sh)
T=$((BASE + 32))
fill_cmd="$HPFILLD_HOOKED --once --mode sysfs --pool 2M:node$first=$T"

### in a terminal

tmux_ new-session -d -s t -x 150 -y 30 sh
tmux_ send-keys -t t "env $fill_env $fill_cmd; echo \"exit status \$?\"" Enter
hold
# three steps of two pages before the pause: 6 of 32, redrawn every tick while it waits
progress_re="^2M pool: 6/32 pages, [0-9]+\.[0-9] GiB/s, [0-9]+ s left$"
wait_screen "$progress_re"
grep -E "$progress_re" "$WORK/screen" | sed 's/^/mid-fill: /'
[ "$(grep -c '^2M pool: ' "$WORK/screen")" = 1 ] || { cat "$WORK/screen"; fail "more than one progress line for one pool"; }
release
wait_screen '^exit status [0-9]+$'
echo "--- the final screen"
sed '/^$/d' "$WORK/screen"
grep -qx 'exit status 0' "$WORK/screen" || fail "the fill in the terminal did not exit 0"
grep -Eq "^2M pool: $T/$T pages on 1 node in [0-9]+ m?s \(sysfs, 1 writer\)$" "$WORK/screen" ||
        fail "no report on the final screen"
if grep -E 'pages, .* s left|pages, starting' "$WORK/screen"; then
        fail "the progress line is still on the screen after the report"
fi
echo "ok: progress mid-fill in a terminal, cleared before the report"

### standard error to a file: no progress, though it ticked

pool2m_set 0
# shellcheck disable=SC2086 # the words of the environment and the command
env $fill_env $fill_cmd -v >"$WORK/out" 2>"$WORK/err" &
pid=$!
hold
# a tick: the debug line the progress would have come with
for _ in $(seq 200); do
        grep -q 'pages added so far' "$WORK/err" && break
        sleep 0.1
done
grep -q 'pages added so far' "$WORK/err" || { cat "$WORK/err"; fail "the fill never ticked while paused"; }
release
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/err"; fail "the fill with stderr to a file exited $rc"; }
if grep -E 'pages, (starting|[0-9.]+ GiB/s)' "$WORK/err" || grep -q "$(printf '\033')" "$WORK/err"; then
        fail "progress written to a file"
fi
expect_in "$WORK/out" "^2M pool: $T/$T pages on 1 node"
echo "ok: no progress with standard error to a file ($(grep -c 'pages added so far' "$WORK/err") ticks)"
echo PASS
