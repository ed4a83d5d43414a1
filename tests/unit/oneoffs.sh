#!/bin/sh
# SPDX-License-Identifier: MIT
# The admin's one-offs on a fake machine (fake-tree.sh, the fake kernel preloaded): pools and
# reservations on the command line are the plan of the run (the files' [Pool] and [Reserve]
# sections are not used, their [Fill] settings are; the report says so), and --reserve's
# owner, group and mode. tests/root/oneoffs.sh runs them on the real kernel.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
has() { grep -qxF -- "$2" "$1" || bad "no '$2' in $1: $(cat "$1")"; }
node_nr() { cat "$work/m/sys/devices/system/node/node$1/hugepages/hugepages-$2kB/nr_hugepages"; }
set_nr() {
        for f in "$work/m/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages" \
                "$work/m/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages" \
                "$work/m/sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages" \
                "$work/m/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"; do
                echo "$1" >"$f"
        done
}
cli_line="Plan from the command line (--pool, --reserve): the configuration's pools, reservations and claims are not used"

fake_machine "$work/m" 1 4096
mkdir -p "$work/m/etc"
# the files' [Reserve] (which a fake tree cannot make: no MADV_POPULATE_WRITE under --root) and
# [Pool] are not the plan of a one-off with --pool; its [Fill] Shrink=yes still applies
printf '[Fill]\nShrink=yes\n[Pool]\nPageSize=2M\nAmount=100\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=10\n' \
        >"$work/m/etc/hpfilld.conf"
run 2 --once
grep -q "etc/hpfilld.conf:[46]: reservations need MADV_POPULATE_WRITE" "$work/err" ||
        bad "the configuration's [Reserve] was not planned without --pool: $(cat "$work/err")"
set_nr 600
run 0 --once --pool 2M:512
[ "$(node_nr 0 2048)" = 512 ] || bad "--pool 2M:512 with the file's Shrink=yes left $(node_nr 0 2048) pages, not 512"
has "$work/out" "$cli_line"
grep -q "vm1" "$work/out" "$work/err" && bad "the file's reservation vm1 was planned: $(cat "$work/out" "$work/err")"
echo "ok: --once --pool 2M:512 leaves the file's [Pool] and [Reserve] out, keeps its Shrink=yes"
run 0 --once --dry-run --json --pool 2M:512
grep -q '"plan_source": "command line"' "$work/out" || bad "--dry-run --json: no plan_source command line: $(cat "$work/out")"
run 0 --once --json --pool 2M:512
grep -q '"plan_source": "command line"' "$work/out" || bad "--once --json: no plan_source command line: $(cat "$work/out")"
# without --pool: the configuration's plan, said so
printf '[Pool]\nPageSize=2M\nAmount=100\n' >"$work/m/etc/hpfilld.conf"
run 0 --once --dry-run --json
grep -q '"plan_source": "configuration"' "$work/out" || bad "plan_source of the files' plan: $(cat "$work/out")"
run 0 --once --dry-run
grep -qF "$cli_line" "$work/out" && bad "the files' plan said to be the command line's: $(cat "$work/out")"
# --reserve alone: the file's [Pool] is not the plan either (its pool is not planned)
run 2 --once --dry-run --reserve db:2M:4
grep -q "^hpfilld: --reserve db:2M:4: reservations need MADV_POPULATE_WRITE" "$work/err" ||
        bad "--reserve alone: $(cat "$work/err")"
grep -q "2M pool" "$work/out" && bad "--reserve alone planned the file's [Pool]: $(cat "$work/out")"
echo "ok: --reserve alone leaves the file's [Pool] out"
# the kernel command line's hpfilld.pool= replaces [Pool] only: the files' [Reserve] stays
printf '[Pool]\nPageSize=2M\nAmount=100\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=10\n' >"$work/m/etc/hpfilld.conf"
echo "hpfilld.pool=2M:50" >"$work/m/proc/cmdline"
run 2 --once --dry-run
grep -q "etc/hpfilld.conf:[46]: reservations need MADV_POPULATE_WRITE" "$work/err" ||
        bad "hpfilld.pool= dropped the files' [Reserve]: $(cat "$work/err")"
: >"$work/m/proc/cmdline"
echo "ok: hpfilld.pool= keeps the files' [Reserve]"

# give-back: what the one-offs added (run/hpfilld/ledger-once), free pages only, never another
# consumer's; the fake kernel leaves free_hugepages as the test writes it
pool() { echo "$3" >"$work/m/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/$2"; }
fake_machine "$work/m" 2 4096
pool 0 nr_hugepages 30
pool 0 free_hugepages 30
run 0 --once --pool 2M:node0=100,node1=40
[ "$(cat "$work/m/run/hpfilld/ledger-once")" = "2097152 0 70 100
2097152 1 40 40" ] || bad "the one-off's ledger: $(cat "$work/m/run/hpfilld/ledger-once")"
pool 0 free_hugepages 100
pool 1 free_hugepages 40
run 0 give-back
has "$work/out" "2M pool of node0: 70 pages given back (100 -> 30)"
has "$work/out" "2M pool of node1: 40 pages given back (40 -> 0)"
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "30 0" ] ||
        bad "give-back left $(node_nr 0 2048) $(node_nr 1 2048), not the other consumer's 30 and 0"
run 0 give-back
grep -q "Nothing to give back" "$work/err" || bad "a second give-back: $(cat "$work/out" "$work/err")"
echo "ok: give-back takes the one-off's pages, leaves another consumer's"
# pages in use (nr less free) and reserved (resv_hugepages) stay: exit 3
pool 0 free_hugepages 30
run 0 --once --pool 2M:node0=100
pool 0 free_hugepages 65
echo 5 >"$work/m/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages"
run 3 give-back
has "$work/out" "2M pool of node0: 60 pages given back (100 -> 40); 10 more of hpfilld's are in use or reserved: kept"
[ "$(node_nr 0 2048)" = 40 ] || bad "give-back went to $(node_nr 0 2048), below the 35 in use and 5 reserved"
[ "$(cat "$work/m/run/hpfilld/ledger-once")" = "2097152 0 10 40" ] ||
        bad "the ledger after a partial give-back: $(cat "$work/m/run/hpfilld/ledger-once")"
echo 0 >"$work/m/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages"
echo "ok: give-back leaves pages in use and reserved (exit 3)"
# not while a daemon holds its mark (here this shell, shared, as the daemon does): exit 1, nothing changed
pool 0 free_hugepages 40
: >"$work/m/run/hpfilld/daemon.lock"
chmod 600 "$work/m/run/hpfilld/daemon.lock"
exec 9<"$work/m/run/hpfilld/daemon.lock"
flock -s 9
run 1 give-back
grep -q "^hpfilld: The hpfilld daemon runs.*stop it first" "$work/err" || bad "give-back beside the daemon: $(cat "$work/err")"
[ "$(node_nr 0 2048)" = 40 ] || bad "give-back beside the daemon changed the pool to $(node_nr 0 2048)"
exec 9<&-
run 0 give-back
[ "$(node_nr 0 2048)" = 30 ] || bad "give-back after the daemon left $(node_nr 0 2048)"
echo "ok: give-back refuses while the daemon runs"
# claims stay, their pages and their files: a pool is given back by what hpfilld added beyond
# the claims of the files the daemon reads (vm1 on node0, vm2 spread: 3 a node), whoever filled
# them (here `hpfilld claim` without a daemon, counted as a one-off's)
fake_machine "$work/m" 2 4096
mkdir -p "$work/m/etc/hpfilld.conf.d"
printf '[Pool]\nPageSize=2M\nAmount=node0=10\n' >"$work/m/etc/hpfilld.conf"
printf '[Claim]\nName=vm2\nPageSize=2M\nAmount=6\n' >"$work/m/etc/hpfilld.conf.d/vm2.conf"
run 0 --once
run 0 claim vm1 --pool 2M:node0=8
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "21 3" ] || bad "the claims' fills: $(node_nr 0 2048) $(node_nr 1 2048)"
pool 0 free_hugepages 21
pool 1 free_hugepages 3
run 0 give-back
has "$work/out" "2M pool of node0: 10 pages given back (21 -> 11); 11 kept for the claims"
has "$work/out" "2M pool of node1: 3 pages of hpfilld's kept for the claims"
has "$work/out" "2 claims kept (hpfilld unclaim NAME gives one back): vm1, vm2"
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "11 3" ] || bad "give-back took claimed pages: $(node_nr 0 2048) $(node_nr 1 2048)"
[ -f "$work/m/run/hpfilld.conf.d/50-claim-vm1.conf" ] || bad "give-back removed vm1's claim file"
# the claims given back: then what they held goes too
pool 0 free_hugepages 11
run 0 unclaim vm1
rm "$work/m/etc/hpfilld.conf.d/vm2.conf"
pool 0 free_hugepages "$(node_nr 0 2048)"
run 0 give-back
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "0 0" ] || bad "give-back after the claims: $(node_nr 0 2048) $(node_nr 1 2048)"
grep -q "claims kept" "$work/out" && bad "claims kept when there are none: $(cat "$work/out")"
# a configuration that cannot be read: the claims not known, nothing given back (exit 2)
run 0 --once --pool 2M:node0=4
pool 0 free_hugepages 4
printf '[Claim]\nName=vm3\nPageSize=2M\nAmount=lots\n' >"$work/m/etc/hpfilld.conf.d/vm3.conf"
run 2 give-back
grep -q "vm3.conf.*lots" "$work/err" || bad "a bad claim file not named: $(cat "$work/err")"
grep -q "nothing given back, nothing changed" "$work/err" || bad "a bad claim file: $(cat "$work/err")"
[ "$(node_nr 0 2048)" = 4 ] || bad "give-back with a bad claim file changed the pool to $(node_nr 0 2048)"
rm "$work/m/etc/hpfilld.conf.d/vm3.conf"
echo "ok: give-back leaves the claims' pages and files, gives back what is beyond them"
# a ledger of an earlier boot (a /run that is not tmpfs keeps it): the pools of this boot hold
# none of its pages (here the 50 the kernel's hugepages= made), and give-back leaves them
fake_machine "$work/m" 1 4096
mkdir -p "$work/m/proc/sys/kernel/random"
echo 11111111-2222-3333-4444-555555555555 >"$work/m/proc/sys/kernel/random/boot_id"
run 0 --once --pool 2M:node0=50
[ "$(cat "$work/m/run/hpfilld/ledger-once")" = "boot 11111111-2222-3333-4444-555555555555
2097152 0 50 50" ] || bad "the one-off's ledger names no boot: $(cat "$work/m/run/hpfilld/ledger-once")"
echo 66666666-7777-8888-9999-000000000000 >"$work/m/proc/sys/kernel/random/boot_id"
pool 0 free_hugepages 50
run 0 give-back
[ "$(node_nr 0 2048)" = 50 ] || bad "give-back after a reboot gave back this boot's pages: $(node_nr 0 2048) left, not 50"
grep -q "counts the pages of an earlier boot" "$work/err" || bad "the earlier boot's ledger not said: $(cat "$work/err")"
run 0 --once --pool 2M:node0=60
[ "$(cat "$work/m/run/hpfilld/ledger-once")" = "boot 66666666-7777-8888-9999-000000000000
2097152 0 10 60" ] || bad "this boot's one-off counted the earlier boot's: $(cat "$work/m/run/hpfilld/ledger-once")"
# the daemon's ledger of the earlier boot, looked at by each one-off's fill: said once
printf 'boot 11111111-2222-3333-4444-555555555555\n2097152 0 5 60\n' >"$work/m/run/hpfilld/ledger"
run 0 --once --pool 2M:node0=60
grep -q "ledger counts the pages of an earlier boot" "$work/err" || bad "the daemon's stale ledger not said: $(cat "$work/err")"
run 0 --once --pool 2M:node0=60
grep -q "earlier boot" "$work/err" && bad "the earlier boot's ledger said again: $(cat "$work/err")"
echo "ok: a ledger of an earlier boot gives back nothing"
run 2 give-back --bogus
has "$work/err" "hpfilld: Try 'hpfilld give-back --help' for more information."
run 2 giveback
has "$work/err" "hpfilld: unknown command 'giveback'; did you mean 'hpfilld give-back'?"
"$HPFILLD" give-back --help | grep -q "^Exit status: 0 all given back, 1 failure or the daemon runs, 2 bad usage,$" ||
        bad "give-back --help does not give its exit statuses"

# --help says it, and shows --reserve's owner, group and mode
"$HPFILLD" --help >"$work/help"
grep -q "^With any --pool or --reserve, those are the plan of the run: the configuration's$" "$work/help" ||
        bad "--help does not say that --pool and --reserve make the plan"
grep -qF -- "--reserve NAME:SIZE:AMOUNT[@nodeN][,owner=USER,group=GROUP,mode=MODE,mount=PATH]" "$work/help" ||
        bad "--help does not show --reserve's owner, group and mode"
# a bad attribute of --reserve: exit 2 before anything is planned or written, naming it
set_nr 7
run 2 --once --pool 2M:20 --reserve 'vm1:2M:4,owner=nobody,mode=0999'
grep -qxF "hpfilld: --reserve 'vm1:2M:4,owner=nobody,mode=0999': mode=0999: must be an octal file mode such as 0640" "$work/err" ||
        bad "a bad mode= of --reserve: $(cat "$work/err")"
[ "$(node_nr 0 2048)" = 7 ] || bad "a bad --reserve changed the pool to $(node_nr 0 2048)"
run 2 --once --reserve 'vm1:2M:4,grop=kvm'
grep -qF "unknown key 'grop'; did you mean 'group'?" "$work/err" || bad "a mistyped key of --reserve: $(cat "$work/err")"
echo "ok: --reserve's owner=, group=, mode=, mount= checked before anything is written"

# --create-mounts under --root: no mount of the host's made for a fake tree, only said; the
# reservation then has no mount (exit 2)
fake_machine "$work/m" 1 4096
run 2 --once --create-mounts --pool 2M:node0=8 --reserve cm:2M:4@node0
grep -q "no hugetlbfs mount for 2M pages: CreateMounts= and --create-mounts mount on the host's / only, not under --root" "$work/err" ||
        bad "--create-mounts under --root: $(cat "$work/err")"
echo "ok: --create-mounts under --root mounts nothing, and says so"
passed
