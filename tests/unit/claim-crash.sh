#!/bin/sh
# SPDX-License-Identifier: MIT
# An unclaim that dies between removing the claim's file and the fill that gives back its
# pages (killed -9 at the rendezvous of HPFILLD_TEST_UNCLAIMED_FIFO, hpfilld-hooked) leaves its
# give-back pending (run/hpfilld/unclaim.NAME, written before the file went), and the next
# command finishes it: an unclaim of the same name, a claim of another, give-back; a claim made
# anew takes its record back. A fill that planned a pending give-back before the host lock, which
# another did meanwhile, gives back nothing more; nor does the fill after one killed past its
# writes; more give-backs pending than a fill reads at once are done by the fills that follow;
# give-back leaves a claim's record whole.
# Without a daemon, on a fake machine under --root; the daemon's side is in
# tests/unit/claim-daemon.py.
set -eu
: "${HPFILLD:?}" "${HPFILLD_HOOKED:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
m=$work/m
p=$m/sys/devices/system/node/node0/hugepages/hugepages-2048kB
run_dir=$m/run/hpfilld
# pages N WHAT: the pool holds N pages
pages() {
        [ "$(cat "$p/nr_hugepages")" = "$1" ] ||
                bad "$2: $(cat "$p/nr_hugepages") pages, expected $1 ($(cat "$work/out" "$work/err"))"
}
# all_free: every page of the pool free (the fake kernel keeps free_hugepages as written)
all_free() { cat "$p/nr_hugepages" >"$p/free_hugepages"; }
# done_with NAME WHAT: no give-back of claim NAME pending, no record of it
done_with() {
        for f in "unclaim.$1" "claim.$1"; do
                [ ! -e "$run_dir/$f" ] || bad "$2: run/hpfilld/$f is left: $(cat "$run_dir/$f")"
        done
}
# paused WHAT: the rendezvous of a test hook on $work/fifo, "paused" (at most 30 s)
paused() {
        local line
        line=$(timeout 30 sh -c 'read -r l <"$1" && echo "$l"' sh "$work/fifo") || true
        [ "$line" = paused ] || bad "$1: no rendezvous ('$line': a binary without the test hooks?)"
}
# crash NAME: hpfilld unclaim NAME killed where its claim's file is gone, before its fill
crash() {
        local pid rc=0
        HPFILLD_TEST_UNCLAIMED_FIFO=$work/fifo "$HPFILLD_HOOKED" unclaim "$1" --root "$m" >"$work/out" 2>"$work/err" &
        pid=$!
        paused "unclaim $1"
        kill -9 "$pid"
        wait "$pid" || rc=$?
        [ "$rc" = 137 ] || bad "unclaim $1: exit $rc, expected killed"
        [ ! -e "$m/run/hpfilld.conf.d/50-claim-$1.conf" ] || bad "unclaim $1 was killed before it removed the file"
        [ -f "$run_dir/unclaim.$1" ] || bad "unclaim $1 killed after the removal: no give-back pending in run/hpfilld"
}

fake_machine "$m" 1 4096 2048
mkdir -p "$m/etc"
printf '[Pool]\nPageSize=2M\nAmount=4\n' >"$m/etc/hpfilld.conf"
mkfifo "$work/fifo"

# the next unclaim of it gives back what the claim got (its file gone already)
run 0 claim vm1 --pool 2M:8
pages 12 "claim vm1"
all_free
crash vm1
pages 12 "unclaim vm1 killed"
run 0 unclaim vm1
pages 4 "unclaim vm1 after the one killed"
grep -q "give-back is pending" "$work/err" || bad "no word of the pending give-back: $(cat "$work/err")"
done_with vm1 "unclaim vm1 after the one killed"

# a claim of another: its fill gives them back too
run 0 claim vm1 --pool 2M:8
all_free
crash vm1
run 0 claim vm2 --pool 2M:2
pages 6 "claim vm2 after unclaim vm1 killed (the [Pool]'s 4, vm2's 2)"
done_with vm1 "claim vm2 after unclaim vm1 killed"

# give-back: all of hpfilld's but the claims' (vm2's 2)
run 0 claim vm1 --pool 2M:8
pages 14 "claim vm1 again"
all_free
crash vm1
run 0 give-back
pages 2 "give-back after unclaim vm1 killed"
done_with vm1 "give-back after unclaim vm1 killed"

# the claim made anew: its pages are its own again (nothing given back), and its unclaim gives
# them back
run 0 claim vm1 --pool 2M:8
pages 14 "claim vm1 once more"
all_free
crash vm1
run 0 claim vm1 --pool 2M:8
pages 14 "claim vm1 made anew after its unclaim was killed"
[ ! -e "$run_dir/unclaim.vm1" ] || bad "a claim made anew left the give-back pending"
all_free
run 0 unclaim vm1
pages 6 "unclaim vm1 made anew"
done_with vm1 "unclaim vm1 made anew"

# a --once that read vm1's pending give-back (8 pages) and planned it, held before the host lock
# (HPFILLD_TEST_PLANNED_FIFO) while an unclaim of vm1 gives those 8 back: with the lock, it plans
# on the records as they are then, and gives back nothing more (not the 4 an admin added)
run 0 claim vm1 --pool 2M:8
pages 14 "claim vm1 before the race"
echo 18 >"$p/nr_hugepages"
all_free
crash vm1
HPFILLD_TEST_PLANNED_FIFO=$work/fifo "$HPFILLD_HOOKED" --once --root "$m" >"$work/once.out" 2>"$work/once.err" &
pid=$!
paused "--once, before the host lock"
run 0 unclaim vm1
pages 10 "unclaim vm1 while a --once that planned its give-back waits"
all_free
timeout 30 sh -c 'echo go >"$1"' sh "$work/fifo" || bad "the paused --once did not take $work/fifo back"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || bad "--once after the unclaim: exit $rc: $(cat "$work/once.out" "$work/once.err")"
pages 10 "--once that planned vm1's give-back before unclaim vm1 did it (the [Pool]'s 4, vm2's 2, the admin's 4)"
done_with vm1 "--once after unclaim vm1"
echo 6 >"$p/nr_hugepages"

# an unclaim killed after its fill's write gave back vm1's 8 (HPFILLD_TEST_PAUSE_FIFO after the
# first step), before it counted them in the records: the next fill sees that they left, and
# gives back nothing more (not the 4 an admin added before)
run 0 claim vm1 --pool 2M:8
pages 14 "claim vm1 before the unclaim killed after its write"
echo 18 >"$p/nr_hugepages"
all_free
HPFILLD_TEST_PAUSE_FIFO=$work/fifo HPFILLD_TEST_PAUSE_AFTER_STEPS=1 "$HPFILLD_HOOKED" unclaim vm1 --root "$m" \
        >"$work/out" 2>"$work/err" &
pid=$!
paused "unclaim vm1, after its first write"
kill -9 "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 137 ] || bad "unclaim vm1 paused after its write: exit $rc, expected killed"
pages 10 "unclaim vm1 killed after its write"
[ -f "$run_dir/unclaim.vm1" ] || bad "unclaim vm1 killed in its fill: no give-back pending"
all_free
run 0 unclaim vm1
pages 10 "unclaim vm1 after one killed after its write (the [Pool]'s 4, vm2's 2, the admin's 4)"
done_with vm1 "unclaim vm1 after one killed after its write"
echo 6 >"$p/nr_hugepages"

# more give-backs pending than a fill reads at a time (256): each fill does those it read, the
# rest wait for the next one; none waits for ever
run 0 claim vm1 --pool 2M:8
pages 14 "claim vm1 before 300 more give-backs pending"
all_free
crash vm1
for i in $(seq 300); do : >"$run_dir/unclaim.gone$i"; done
run 0 --once
run 0 --once
pages 6 "two fills after unclaim vm1 killed, 300 more give-backs pending"
done_with vm1 "two fills with 301 give-backs pending"
! ls "$run_dir" | grep -q '^unclaim\.' || bad "give-backs left pending after two fills: $(ls "$run_dir")"

# give-back takes none of a claim's pages: the record stays whole, and the claim's unclaim gives
# back all it got (on a machine anew: vm1's 6 over the [Pool]'s 4, 4 more by a --once --pool)
fake_machine "$m" 1 4096 2048
mkdir -p "$m/etc"
printf '[Pool]\nPageSize=2M\nAmount=4\n' >"$m/etc/hpfilld.conf"
run 0 claim vm1 --pool 2M:6
run 0 --once --pool 2M:14
pages 14 "claim vm1 and a --once --pool beside it"
all_free
run 0 give-back
pages 6 "give-back beside claim vm1"
rm "$m/etc/hpfilld.conf"
run 0 unclaim vm1
pages 0 "unclaim vm1 after a give-back"
done_with vm1 "unclaim vm1 after a give-back"
passed
