# SPDX-License-Identifier: MIT
# Shared by the root tests: skip when they cannot run; the host as found, from the pages others
# hold (as-found.sh), and put back however the test ends.
set -eu

HP=/sys/kernel/mm/hugepages
NODES=/sys/devices/system/node

[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }

# start_time PID: the process's start time (field 22 of /proc/PID/stat), empty when it is gone
start_time() {
        sed -n 's/.*) //p' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
}

# sweep_dead_tests: what a root test killed outright left (SIGKILL, or meson's kill after its
# SIGTERM, cut its cleanup short): its hugetlbfs mounts and its directory, found by the owner
# (pid and start time) each test writes in its $WORK, so never a running test's
sweep_dead_tests() {
        local d pid start m
        for d in /tmp/hpfilld-root-test.*; do
                [ -f "$d/owner" ] && read -r pid start <"$d/owner" || continue
                [ "$(start_time "$pid")" != "$start" ] || continue
                awk -v d="$d/" '$3 == "hugetlbfs" && index($2, d) == 1 { print $2 }' /proc/self/mounts |
                        while read -r m; do rm -rf "$m/hpfilld"; umount "$m"; done
                rm -rf --one-file-system "$d"
                echo "note: removed what a killed root test left: $d" >&2
        done
}
[ -n "${IN_OWN_MOUNT_NS:-}" ] || sweep_dead_tests
# OWN_MOUNT_NS=1 before sourcing: the test runs in a mount namespace of its own, without the
# hugetlbfs mounts of the host, so that the reservations go to the mount it makes whatever other
# tests of this host have mounted (the pools are the host's all the same).
if [ -n "${OWN_MOUNT_NS:-}" ] && [ -z "${IN_OWN_MOUNT_NS:-}" ] && command -v unshare >/dev/null; then
        IN_OWN_MOUNT_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
if [ -n "${IN_OWN_MOUNT_NS:-}" ]; then
        awk '$3 == "hugetlbfs" { print $2 }' /proc/self/mounts | while read -r m; do umount "$m"; done
fi
[ -d "$HP/hugepages-2048kB" ] || { echo "SKIP: no 2 MiB huge pages on this kernel"; exit 77; }
: "${HPFILLD:?HPFILLD must name the hpfilld binary}"

# need_test_hooks: the test pauses or interrupts fills through the test hooks (tests/hooks/hooks.h),
# linked into HPFILLD_HOOKED, the binary tests/meson.build builds beside hpfilld: skips (exit 77,
# with the reason) without it, say when run outside meson
need_test_hooks() {
        [ -n "${HPFILLD_HOOKED:-}" ] && [ -x "$HPFILLD_HOOKED" ] ||
                { echo "SKIP: no HPFILLD_HOOKED (tests/hpfilld-hooked, the binary with the test hooks)"; exit 77; }
}

# LeakSanitizer stops a traced process (it does not work under ptrace): a sanitizer build's runs
# under strace leave it out
export STRACE_ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

WORK=$(mktemp -d /tmp/hpfilld-root-test.XXXXXX)
echo "$$ $(start_time $$)" >"$WORK/owner"
SAVED="$WORK/saved"
. "$(dirname "${BASH_SOURCE[0]}")/as-found.sh"
found_save
save_pools

# mount_huge: $MNT, a hugetlbfs mount of 2 MiB pages of the test's own ($WORK/huge), unmounted at
# the end with the reservations made in it (EXTRA_CLEANUP); skips (exit 77) where it cannot mount
mount_huge() {
        MNT="$WORK/huge"
        mkdir -p "$MNT"
        mount -t hugetlbfs -o pagesize=2M none "$MNT" || { echo "SKIP: cannot mount hugetlbfs"; exit 77; }
        EXTRA_CLEANUP="rm -rf '$MNT/hpfilld'; umount '$MNT'"
}

# pause_fifo: $FIFO, a new FIFO for HPFILLD_TEST_PAUSE_FIFO= (the rendezvous of the test hooks)
pause_fifo() {
        FIFO=$WORK/pause
        mkfifo "$FIFO"
}

# wait_paused FIFO [WHAT]: until the fill (hpfilld-hooked) says "paused" on FIFO, at most 30 s: a
# binary that never opens it (one without the hooks) fails the test instead of hanging it.
wait_paused() {
        local line
        line=$(timeout 30 sh -c 'read -r l <"$1" && echo "$l"' sh "$1") ||
                fail "${2:+$2: }no rendezvous on $1 within 30 s (a binary without the test hooks, or one that died?)"
        [ "$line" = paused ] || fail "${2:+$2: }no rendezvous: '$line'"
}

# fifo_go FIFO: lets a fill paused at HPFILLD_TEST_PAUSE_FIFO go on. The write waits until the
# fill has the FIFO open to read: "go" written before that, through a descriptor closed at
# once, would be lost with the pipe, and the fill would wait for ever. A fill that died is a
# failure after 30 s.
fifo_go() {
        timeout 30 sh -c 'echo go >"$1"' sh "$1" || fail "the paused fill did not take $1 back"
}

# read_waiting: the next line on fd 4 (a second fill's stderr) into $line, past the warning a
# host whose nodes' meminfo lags /proc/meminfo gets before every plan (job.c)
read_waiting() {
        while read -r line <&4; do
                case $line in "hpfilld: The nodes' meminfo count "*) continue ;; esac
                return 0
        done
        return 1
}

# second_exits RC: waits for the second of two fills (pid $PID2, stdout in $WORK/out2, its
# stderr open on fd 4 past the lines read), which must exit RC; the rest of its stderr is then
# in $WORK/err2.rest
second_exits() {
        local rc=0
        wait "$PID2" || rc=$?
        cat <&4 >"$WORK/err2.rest"
        exec 4<&-
        [ "$rc" = "$1" ] || { cat "$WORK/out2" "$WORK/err2.rest"; fail "the second fill exited $rc, expected $1"; }
}

# cleanup: however the test ends (its status, set -e, fail, a signal), the host as found: what
# it left running stopped, what holds pages (files, mounts) gone, then the pools, HVO and
# /run/hpfilld put back; then compared with what was found, a difference failing the test
cleanup() {
        local rc=$? p
        # a second ^C or SIGTERM (meson sends one to the whole process group) must not cut it short
        trap '' INT TERM
        # what a failed or killed test left running in the background (an hpfilld paused at a
        # FIFO, say) must not go on holding the host lock or pages
        for p in $(jobs -p); do
                kill -9 "$p" 2>/dev/null || true
                wait "$p" 2>/dev/null || true
        done
        # first what holds pages (reservation files, mounts), then the pools
        if [ -n "${EXTRA_CLEANUP:-}" ]; then eval "$EXTRA_CLEANUP" || true; fi
        if [ -n "${HOLD_PID:-}" ]; then kill "$HOLD_PID" 2>/dev/null || true; wait "$HOLD_PID" 2>/dev/null || true; fi
        umount_leftovers
        reservations_remove
        restore_pools
        hvo_restore
        state_restore
        if ! found_check >"$WORK/left" 2>&1; then
                cat "$WORK/left" >&2
                echo "FAIL: the test left the host other than it found it (above)" >&2
                [ "$rc" != 0 ] && [ "$rc" != 77 ] || rc=1
        fi
        rm -rf --one-file-system "$WORK"
        exit $rc
}

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# checkpoint NAME: where tests/root/stopped.sh stops this test half way (ROOT_TEST_STOP=NAME:HOW):
# HOW a signal, sent to the test's process group as a terminal's ^C or meson's timeout sends it,
# or "fail", a failure there; the test must leave the host as found all the same
checkpoint() {
        [ "${ROOT_TEST_STOP:-}" != "" ] && [ "${ROOT_TEST_STOP%%:*}" = "$1" ] || return 0
        case ${ROOT_TEST_STOP#*:} in
        fail) fail "stopped at checkpoint $1 (ROOT_TEST_STOP)" ;;
        *) kill -s "${ROOT_TEST_STOP#*:}" 0 ;;
        esac
}

# pool2m_set N: the 2 MiB pool to N pages above what others hold ($BASE_ALL, as-found.sh), the
# new ones spread by the kernel (setup before a test case)
pool2m_set() {
        echo $((BASE_ALL + $1)) >"$HP/hugepages-2048kB/nr_hugepages"
}

pool2m_nr() {
        cat "$HP/hugepages-2048kB/nr_hugepages"
}

# pool2m_clean OVERCOMMIT: no 2 MiB surplus page left, nr_overcommit_hugepages at OVERCOMMIT
pool2m_clean() {
        local g=$HP/hugepages-2048kB
        [ "$(cat "$g/surplus_hugepages")" = 0 ] || fail "surplus pages left: $(cat "$g/surplus_hugepages")"
        [ "$(cat "$g/nr_overcommit_hugepages")" = "$1" ] || fail "overcommit $(cat "$g/nr_overcommit_hugepages"), expected $1"
}

node_nr() { # node size_kb
        cat "$NODES/node$1/hugepages/hugepages-$2kB/nr_hugepages"
}

# node_persistent NODE: the node's 2M pages less its surplus ones
node_persistent() {
        local d=$NODES/node$1/hugepages/hugepages-2048kB
        echo $(($(cat "$d/nr_hugepages") - $(cat "$d/surplus_hugepages")))
}

mem_nodes() {
        if [ -r "$NODES/has_memory" ]; then
                # expand "0-2,4" into "0 1 2 4"
                tr ',' '\n' <"$NODES/has_memory" | while IFS=- read -r a b; do
                        seq "$a" "${b:-$a}"
                done | tr '\n' ' '
        else
                echo 0
        fi
}

# expect_rc WANT CMD...: runs CMD with stdout and stderr in $WORK/out and $WORK/err.
expect_rc() {
        local want_rc=$1 got_rc
        shift
        set +e
        "$@" >"$WORK/out" 2>"$WORK/err"
        got_rc=$?
        set -e
        if [ "$got_rc" != "$want_rc" ]; then
                echo "--- stdout"; cat "$WORK/out"; echo "--- stderr"; cat "$WORK/err"
                fail "'$*' exited $got_rc, expected $want_rc"
        fi
}

# fill_1g NODE COUNT: hpfilld --once for COUNT 1 GiB pages on NODE, which may come back short
# (alloc_contig); sets rc (its status) and got (the node's pages then), shows its output.
fill_1g() {
        set +e
        "$HPFILLD" --once --pool "1G:node$1=$2" >"$WORK/out" 2>"$WORK/err"
        rc=$?
        set -e
        cat "$WORK/out" "$WORK/err"
        got=$(node_nr "$1" 1048576)
}

# daemon_until WORDS [ARG...]: the daemon ($HPFILLD ARG...) started in the background, its pid in
# $DPID, its standard error read on fd 5 (a FIFO; the rest left there) until a line with WORDS
# (daemon_read)
daemon_until() {
        local words=$1
        shift
        [ -p "$WORK/derr" ] || mkfifo "$WORK/derr"
        "$HPFILLD" "$@" >"$WORK/dout" 2>"$WORK/derr" &
        DPID=$!
        exec 5<"$WORK/derr"
        daemon_read "$words"
}

# daemon_read WORDS: the daemon's standard error (fd 5) read on up to a line with WORDS, kept in
# $LINE, each line shown; fails where it ends first
daemon_read() {
        local line
        while read -r line <&5; do
                echo "daemon: $line"
                case $line in *"$1"*) LINE=$line; return 0 ;; esac
        done
        fail "the daemon ended before it said '$1'"
}

# daemon_stop: SIGTERM to the daemon daemon_until started ($DPID), the rest of its standard error
# in $WORK/derr.rest; a failure where it exits other than 0
daemon_stop() {
        local rc=0
        kill -TERM "$DPID"
        cat <&5 >"$WORK/derr.rest"
        exec 5<&-
        wait "$DPID" || rc=$?
        [ "$rc" = 0 ] || { cat "$WORK/derr.rest"; fail "the daemon exited $rc on SIGTERM"; }
}

expect_in() { # file pattern
        grep -Eq -- "$2" "$1" || { echo "--- $1"; cat "$1"; fail "no '$2' in $1"; }
}

# hold_pages N: a workload (hold-pages.py) maps and touches N 2 MiB pages and holds them until
# hold_release; returns once they are all in.
hold_pages() {
        coproc HOLD { python3 "$SOURCE_ROOT/tests/root/hold-pages.py" "$1"; }
        local line
        read -r line <&"${HOLD[0]}" || true
        [ "$line" = holding ] || fail "the workload could not map $1 pages: '$line'"
}

# hold_release: the workload checks its pages are as it wrote them and exits.
hold_release() {
        local line pid=$HOLD_PID
        echo >&"${HOLD[1]}"
        read -r line <&"${HOLD[0]}" || true
        wait "$pid" 2>/dev/null || true
        [ "$line" = intact ] || fail "the workload's pages changed: '$line'"
}

# reserve_pages FILE N: a workload (reserve-pages.py) reserves N 2 MiB pages of the hugetlbfs
# file FILE without touching them (resv_hugepages) until reserve_release, which ends it and
# removes FILE (the reservation is the file's); returns once they are reserved.
reserve_pages() {
        coproc HOLD { python3 "$SOURCE_ROOT/tests/root/reserve-pages.py" "$1" "$2"; }
        RESERVE_FILE=$1
        local line
        read -r line <&"${HOLD[0]}" || true
        [ "$line" = reserved ] || fail "the workload could not reserve $2 pages: '$line'"
}

reserve_release() {
        local pid=$HOLD_PID
        echo >&"${HOLD[1]}"
        wait "$pid" 2>/dev/null || true
        rm -f "$RESERVE_FILE"
}

# the NUMA nodes with memory ("0 1 "), and the first of them
nodes=$(mem_nodes)
first=${nodes%% *}

# the 2M pool down to what others hold: the test's zero (as-found.sh)
found_start
