#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes under --root go to the attributes as they are: a fill of a fake tree (a plain directory,
# nothing of the host's) writes its counters; a symbolic link or a FIFO in the place of one is
# refused before the first write (exit status 1, the path and the reason in the message), and
# the file the link points to, outside the tree, is never written (run/hpfilld/state included).
set -eu
: "${HPFILLD:?}"
. "$(dirname "$0")/fake-tree.sh"
work_dir

# a machine of two nodes with 4 GiB each, 2M pages; node0 holds 16 pages already
tree() {
        fake_machine "$work/t" 2 4096 2048
        for f in nr_hugepages free_hugepages; do echo 16 >"$work/t/sys/devices/system/node/node0/hugepages/hugepages-2048kB/$f"; done
        echo 16 >"$work/t/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
}
attr() { echo "$work/t/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/nr_hugepages"; }
# a file's bytes, its newlines as '|'
bytes() { tr '\n' '|' <"$1"; }
fill() {
        rc=0
        timeout 20 "$HPFILLD" --once --root "$work/t" --mode sysfs --shrink --pool "$1" >"$work/out" 2>"$work/err" || rc=$?
}

# a plain fill: each counter reads back as the kernel's would. node0's 16 pages are not
# hpfilld's (no state counts them): --shrink leaves them
tree
fill 2M:node0=4,node1=10
[ "$rc" = 0 ] || bad "the fill of the fake tree exited $rc: $(cat "$work/err")"
[ "$(bytes "$(attr 0)")" = "16|" ] || bad "node0 reads '$(bytes "$(attr 0)")' after the fill, not the 16 it had"
[ "$(bytes "$(attr 1)")" = "10|" ] || bad "node1 reads '$(bytes "$(attr 1)")' after the fill, not 10"
echo "ok: a fill of a fake tree: node0 $(cat "$(attr 0)"), node1 $(cat "$(attr 1)")"
# the run's own pages beyond its target go (node1's "10" replaced by "4", no byte left over); the fake
# kernel without fake-pools leaves free_hugepages as written: all free
echo 10 >"$(dirname "$(attr 1)")/free_hugepages"
fill 2M:node0=4,node1=4
[ "$rc" = 0 ] || bad "the --shrink fill exited $rc: $(cat "$work/err")"
[ "$(bytes "$(attr 1)")" = "4|" ] || bad "node1 reads '$(bytes "$(attr 1)")' after --shrink, not 4"
[ "$(bytes "$(attr 0)")" = "16|" ] || bad "node0 reads '$(bytes "$(attr 0)")' after --shrink, not the 16 it had"
echo "ok: --shrink on a fake tree: node0 $(cat "$(attr 0)"), node1 $(cat "$(attr 1)")"

# an attribute that is a symbolic link to a file outside the tree (a counter, so that the reads
# before the plan pass and the write is what refuses it)
tree
echo 7 >"$work/outside"
rm "$(attr 1)"
ln -s "$work/outside" "$(attr 1)"
fill 2M:node0=4,node1=10
[ "$rc" = 1 ] || bad "a symbolic link as node1's nr_hugepages: exit $rc, expected 1"
grep -qF "hpfilld: Cannot read the pool counters in $(dirname "$(attr 1)")/: a symbolic link on its way or in its place, not a kernel attribute: refused" "$work/err" ||
        bad "the message does not name the link: $(cat "$work/err")"
[ "$(cat "$work/outside")" = 7 ] || bad "the file outside the tree was written: '$(cat "$work/outside")'"
[ "$(cat "$(attr 0)")" = 16 ] || bad "node0 was written before the refusal: $(cat "$(attr 0)")"
echo "ok: a symbolic link in place of an attribute: $(cat "$work/err")"

# a directory on the way that is a symbolic link out of the tree (node1's pool, to a copy
# outside that holds a counter of root's): refused before the first write, the copy unchanged
tree
mkdir -p "$work/outpool"
for f in nr_hugepages free_hugepages surplus_hugepages; do echo 0 >"$work/outpool/$f"; done
echo 7 >"$work/outpool/nr_hugepages"
rm -r "$(dirname "$(attr 1)")"
ln -s "$work/outpool" "$(dirname "$(attr 1)")"
fill 2M:node0=4,node1=10
[ "$rc" = 1 ] || bad "a symbolic link as node1's pool directory: exit $rc, expected 1"
grep -qF "hpfilld: Cannot read the pool counters in $(dirname "$(attr 1)")/: a symbolic link on its way or in its place" "$work/err" ||
        bad "the message does not name the linked directory: $(cat "$work/err")"
[ "$(cat "$work/outpool/nr_hugepages")" = 7 ] || bad "the file outside the tree was written: '$(cat "$work/outpool/nr_hugepages")'"
[ "$(cat "$(attr 0)")" = 16 ] || bad "node0 was written before the refusal: $(cat "$(attr 0)")"
echo "ok: a symbolic link on the way to an attribute: $(cat "$work/err")"

# run/ a symbolic link out of the tree: the lock and the record of the fill are not made there
tree
mkdir -p "$work/outrun"
ln -s "$work/outrun" "$work/t/run"
fill 2M:node0=4,node1=10
[ -z "$(ls -A "$work/outrun")" ] || bad "files made through the run/ link: $(ls -A "$work/outrun")"
[ "$rc" != 0 ] || bad "a symbolic link as run/: exit 0"
echo "ok: run/ a symbolic link: exit $rc: $(head -n 1 "$work/err")"

# run/hpfilld/state a symbolic link out of the tree: refused (exit 1), the file it points to
# neither read as the state nor written, no pool changed
tree
mkdir -p "$work/t/run/hpfilld"
echo "hpfilld-state 1" >"$work/outstate"
ln -s "$work/outstate" "$work/t/run/hpfilld/state"
fill 2M:node0=4,node1=10
[ "$rc" = 1 ] || bad "a symbolic link as run/hpfilld/state: exit $rc, expected 1"
[ "$(cat "$work/outstate")" = "hpfilld-state 1" ] || bad "written through the state's link: $(cat "$work/outstate")"
[ -L "$work/t/run/hpfilld/state" ] || bad "the state's link was replaced"
[ "$(cat "$(attr 0)") $(cat "$(attr 1)")" = "16 0" ] || bad "a pool written beside the state's link: $(cat "$(attr 0)") $(cat "$(attr 1)")"
grep -qF "Cannot read $work/t/run/hpfilld/state: Too many levels of symbolic links; nothing changed" "$work/err" ||
        bad "the message does not name the state's link: $(cat "$work/err")"
echo "ok: run/hpfilld/state a symbolic link: $(head -n 1 "$work/err")"

# the tree's mount table names a directory of the host's (here one outside the tree, with a
# file where a reservation would be): its mount points are the tree's, looked for inside it
tree
mkdir -p "$work/t/proc/self" "$work/hostmnt/hpfilld"
: >"$work/hostmnt/hpfilld/vm1"
echo "none $work/hostmnt hugetlbfs rw,relatime,pagesize=2M 0 0" >"$work/t/proc/self/mounts"
# the state records vm1 as hpfilld's (0 0: by its name), so --release looks for it
mkdir -p "$work/t/run/hpfilld"
printf 'hpfilld-state 1\nreserve vm1 2097152 1 0 0\nend\n' >"$work/t/run/hpfilld/state"
rc=0
timeout 20 "$HPFILLD" --root "$work/t" --release vm1 >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 1 ] || bad "--release of a reservation the tree's table places on the host: exit $rc, expected 1"
grep -qFx "hpfilld: No reservation 'vm1'" "$work/err" || bad "the mount point was opened outside the tree: $(cat "$work/err")"
[ -e "$work/hostmnt/hpfilld/vm1" ] || bad "the file outside the tree was removed"
echo "ok: a mount table naming a host path: $(cat "$work/err")"

# a FIFO in its place: refused at once, not waited on (timeout 20 would end it: 124); the read
# of the counters before the plan finds it holds no number
tree
rm "$(attr 1)"
mkfifo "$(attr 1)"
fill 2M:node0=4,node1=10
[ "$rc" = 1 ] || bad "a FIFO as node1's nr_hugepages: exit $rc, expected 1"
grep -qF "hpfilld: Cannot read the pool counters in $(dirname "$(attr 1)")/: Bad message" "$work/err" ||
        bad "the message does not name the FIFO's directory: $(cat "$work/err")"
[ "$(cat "$(attr 0)")" = 16 ] || bad "node0 was written before the refusal: $(cat "$(attr 0)")"
echo "ok: a FIFO in place of an attribute: $(cat "$work/err")"

# a missing attribute is an error, never created
tree
rm "$(attr 1)"
fill 2M:node0=4,node1=10
[ "$rc" != 0 ] || bad "a missing nr_hugepages: exit 0"
[ ! -e "$(attr 1)" ] || bad "the missing nr_hugepages was created"
echo "ok: a missing attribute: exit $rc: $(head -n 1 "$work/err")"

# a plan refused (bad input, exit 2) changes nothing in the tree: no counter, no state; the
# host lock, taken before the plan (a command reads its configuration under it), is all that
# run/hpfilld holds
tree
before=$(cd "$work/t" && find . -path ./run -prune -o -print | sort)
fill 2M:node7=4
[ "$rc" = 2 ] || bad "a node the tree has not: exit $rc, expected 2: $(cat "$work/err")"
[ "$(cd "$work/t" && find . -path ./run -prune -o -print | sort)" = "$before" ] ||
        bad "a refused plan changed the tree (now: $(cd "$work/t" && find . | sort | tr "\n" " " | cut -c1-300))"
[ "$(cat "$(attr 0)") $(cat "$(attr 1)")" = "16 0" ] || bad "a refused plan wrote a pool: $(cat "$(attr 0)") $(cat "$(attr 1)")"
[ -z "$(rundir_extra "$work/t" host.lock)" ] ||
        bad "a refused plan left files in run/hpfilld: $(ls -A "$work/t/run/hpfilld")"
echo "ok: a refused plan leaves the tree as it was: $(head -n 1 "$work/err")"

passed
