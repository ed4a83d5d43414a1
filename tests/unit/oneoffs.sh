#!/bin/sh
# SPDX-License-Identifier: MIT
# The admin's one-offs on a fake machine (fake-tree.sh, the fake kernel preloaded): pools and
# reservations on the command line are the plan of the run (the files' [Pool] and [Reserve]
# sections are not used, their [Fill] settings are; the report says so), and --reserve's
# owner, group and mode; their pages are the owner "once" of run/hpfilld/state: --shrink gives
# back its own pages, never another's, and give-back gives back every owner's free pages but
# the claims'. tests/root/oneoffs.sh runs them on the real kernel.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
has() { grep -qxF -- "$2" "$1" || bad "no '$2' in $1: $(cat "$1")"; }
node_nr() { cat "$work/m/sys/devices/system/node/node$1/hugepages/hugepages-$2kB/nr_hugepages"; }
# set_nr N: node0's 2M pool holds N pages, the administrator's (an echo)
set_nr() { fake_write "$work/m/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages" "$1"; }
# share OWNER NODE HELD/WANT: what OWNER holds and wants of NODE's 2M pool, as the state says
share() {
        [ "$(state_share "$work/m" "$1" 2048 "$2")" = "$3" ] ||
                bad "$1's share of node$2: $(state_share "$work/m" "$1" 2048 "$2"), expected $3: $(cat "$work/m/run/hpfilld/state")"
}
cli_line="Plan from the command line (--pool, --reserve): the configuration's pools, reservations and claims are not used"

fake_machine "$work/m" 1 4096
fake_pools "$work/m"
mkdir -p "$work/m/etc"
# the files' [Reserve] (which a fake tree cannot make: no MADV_POPULATE_WRITE under --root) and
# [Pool] are not the plan of a one-off with --pool; its [Fill] Shrink=yes still applies
printf '[Fill]\nShrink=yes\n[Pool]\nPageSize=2M\nAmount=100\n[Reserve]\nName=vm1\nPageSize=2M\nAmount=10\n' \
        >"$work/m/etc/hpfilld.conf"
run 2 --once
grep -q "etc/hpfilld.conf:[46]: reservations need MADV_POPULATE_WRITE" "$work/err" ||
        bad "the configuration's [Reserve] was not planned without --pool: $(cat "$work/err")"
# 600 pages of another's: a one-off to 700 adds 100 of its own; to 512 with the file's
# Shrink=yes it gives back its own 100, and keeps the other's 600 (never another's page)
set_nr 600
run 0 --once --pool 2M:700
[ "$(node_nr 0 2048)" = 700 ] || bad "--pool 2M:700 left $(node_nr 0 2048) pages, not 700"
share once 0 100/700
# a dry run plans what the fill does: its own 100 given back, not the other's 600
run 0 --once --dry-run --pool 2M:512
grep -Eq '^2M +node0 +700 +600 +-100 ' "$work/out" || bad "--dry-run of the shrink to 512 does not plan 700 -> 600: $(cat "$work/out")"
run 0 --once --pool 2M:512
[ "$(node_nr 0 2048)" = 600 ] || bad "--pool 2M:512 with the file's Shrink=yes left $(node_nr 0 2048) pages, not the other's 600"
share once 0 0/512
has "$work/out" "  node0: 700 -> 600 (target 600, 88 above the 512 asked kept: in use, or not the run's)"
has "$work/out" "$cli_line"
grep -q "vm1" "$work/out" "$work/err" && bad "the file's reservation vm1 was planned: $(cat "$work/out" "$work/err")"
echo "ok: --once --pool 2M:512 leaves the file's [Pool] and [Reserve] out, keeps its Shrink=yes (its own pages only)"
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

# give-back: what the one-offs added (the state's owner once), free pages only, never another
# consumer's (node0's 30)
fake_machine "$work/m" 2 4096
fake_pools "$work/m"
set_nr 30
run 0 --once --pool 2M:node0=100,node1=40
share once 0 70/100
share once 1 40/40
run 0 give-back
has "$work/out" "2M pool of node0: 70 pages given back (100 -> 30)"
has "$work/out" "2M pool of node1: 40 pages given back (40 -> 0)"
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "30 0" ] ||
        bad "give-back left $(node_nr 0 2048) $(node_nr 1 2048), not the other consumer's 30 and 0"
[ "$(state_owner "$work/m" once)" = - ] || bad "the one-offs' owner after give-back: $(cat "$work/m/run/hpfilld/state")"
run 0 give-back
grep -q "Nothing to give back" "$work/err" || bad "a second give-back: $(cat "$work/out" "$work/err")"
echo "ok: give-back takes the one-off's pages, leaves another consumer's"
# pages in use (nr less free) and reserved (resv_hugepages) stay: exit 3
run 0 --once --pool 2M:node0=100
fake_in_use "$work/m" 0 2048 35
echo 5 >"$work/m/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages"
run 3 give-back
has "$work/out" "2M pool of node0: 60 pages given back (100 -> 40); 10 more of hpfilld's are in use or reserved: kept"
[ "$(node_nr 0 2048)" = 40 ] || bad "give-back went to $(node_nr 0 2048), below the 35 in use and 5 reserved"
share once 0 10/0
echo 0 >"$work/m/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages"
fake_in_use "$work/m" 0 2048 0
echo "ok: give-back leaves pages in use and reserved (exit 3)"
# not while a daemon runs, as the state records it (pid and start time: here pid 4242 of the
# tree's proc): exit 1, nothing changed
stat_of() { echo "4242 (hpfilld) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 $1 0 0" >"$work/m/proc/4242/stat"; }
mkdir -p "$work/m/proc/4242"
stat_of 777
sed -i 's/^seq .*$/&\ndaemon 4242 777/' "$work/m/run/hpfilld/state"
run 1 give-back
grep -q "^hpfilld: The hpfilld daemon runs (pid 4242): stop it first" "$work/err" || bad "give-back beside the daemon: $(cat "$work/err")"
[ "$(node_nr 0 2048)" = 40 ] || bad "give-back beside the daemon changed the pool to $(node_nr 0 2048)"
grep -qx "daemon 4242 777" "$work/m/run/hpfilld/state" || bad "the daemon's line is gone: $(cat "$work/m/run/hpfilld/state")"
# pid 4242 another process now (another start time): the daemon ended, give-back goes on
stat_of 778
run 0 give-back
[ "$(node_nr 0 2048)" = 30 ] || bad "give-back after the daemon left $(node_nr 0 2048)"
grep -q "^daemon " "$work/m/run/hpfilld/state" && bad "the daemon that ended is still recorded: $(cat "$work/m/run/hpfilld/state")"
echo "ok: give-back refuses while the daemon runs"
# claims stay, with their pages: give-back gives back every owner's free pages but the claims'
# (vm1: `hpfilld claim`); a [Claim] of the configuration (vm2, 3 a node) is the
# configuration's pages, given back with its [Pool]
fake_machine "$work/m" 2 4096
fake_pools "$work/m"
mkdir -p "$work/m/etc/hpfilld.conf.d"
printf '[Pool]\nPageSize=2M\nAmount=node0=10\n' >"$work/m/etc/hpfilld.conf"
printf '[Claim]\nName=vm2\nPageSize=2M\nAmount=6\n' >"$work/m/etc/hpfilld.conf.d/vm2.conf"
run 0 --once
run 0 claim vm1 --pool 2M:node0=8
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "21 3" ] || bad "the claims' fills: $(node_nr 0 2048) $(node_nr 1 2048)"
share config 0 13/13
share claim:vm1 0 8/8
run 0 give-back
has "$work/out" "2M pool of node0: 13 pages given back (21 -> 8)"
has "$work/out" "2M pool of node1: 3 pages given back (3 -> 0)"
has "$work/out" "1 claim kept (hpfilld unclaim NAME gives one back): vm1"
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "8 0" ] || bad "give-back took claimed pages: $(node_nr 0 2048) $(node_nr 1 2048)"
share claim:vm1 0 8/8
[ "$(state_owner "$work/m" config)" = - ] || bad "the configuration's owner after give-back: $(cat "$work/m/run/hpfilld/state")"
# what the configuration asked is given up with its pages: the targets are the claim's
run 0 status
grep -Eq "^2M +node0 +8 +8 " "$work/out" || bad "status after give-back: $(cat "$work/out")"
# the claim given back: then nothing of hpfilld's is left
run 0 unclaim vm1
run 0 give-back
[ "$(node_nr 0 2048) $(node_nr 1 2048)" = "0 0" ] || bad "give-back after the claims: $(node_nr 0 2048) $(node_nr 1 2048)"
grep -q "claims kept" "$work/out" && bad "claims kept when there are none: $(cat "$work/out")"
grep -q "Nothing to give back" "$work/err" || bad "give-back with nothing left: $(cat "$work/out" "$work/err")"
# give-back does not read the configuration (the claims are in the state): a bad file does not
# stop it, and --config is taken and ignored, with a notice
run 0 --once --pool 2M:node0=4
printf '[Claim]\nName=vm3\nPageSize=2M\nAmount=lots\n' >"$work/m/etc/hpfilld.conf.d/vm3.conf"
run 0 give-back --config "$work/m/etc/hpfilld.conf"
grep -q "give-back --config: not needed any more" "$work/err" || bad "give-back --config: $(cat "$work/err")"
[ "$(node_nr 0 2048)" = 0 ] || bad "give-back with a bad claim file left the pool at $(node_nr 0 2048)"
rm "$work/m/etc/hpfilld.conf.d/vm3.conf"
echo "ok: give-back leaves the claims' pages, gives back the configuration's and the one-offs'"
# a state of an earlier boot (a /run that is not tmpfs keeps it): the pools of this boot hold
# none of its pages (here the 50 the kernel's hugepages= made), and give-back leaves them
fake_machine "$work/m" 1 4096
fake_pools "$work/m"
mkdir -p "$work/m/proc/sys/kernel/random"
echo 11111111-2222-3333-4444-555555555555 >"$work/m/proc/sys/kernel/random/boot_id"
run 0 --once --pool 2M:node0=50
grep -qx "boot 11111111-2222-3333-4444-555555555555" "$work/m/run/hpfilld/state" ||
        bad "the state names no boot: $(cat "$work/m/run/hpfilld/state")"
share once 0 50/50
echo 66666666-7777-8888-9999-000000000000 >"$work/m/proc/sys/kernel/random/boot_id"
# a dry run reads the state as a fill would: of an earlier boot, none of the pages are the run's
run 0 --once --dry-run --shrink --pool 2M:node0=20
grep -Eq '^2M +node0 +50 +20 +\+0 .* larger, kept$' "$work/out" ||
        bad "--dry-run --shrink counted the earlier boot's pages as the run's: $(cat "$work/out")"
run 0 give-back
[ "$(node_nr 0 2048)" = 50 ] || bad "give-back after a reboot gave back this boot's pages: $(node_nr 0 2048) left, not 50"
grep -q "state is of an earlier boot (11111111-2222-3333-4444-555555555555)" "$work/err" ||
        bad "the earlier boot's state not said: $(cat "$work/err")"
run 0 --once --pool 2M:node0=60
share once 0 10/60
grep -qx "boot 66666666-7777-8888-9999-000000000000" "$work/m/run/hpfilld/state" ||
        bad "this boot's one-off counted the earlier boot's: $(cat "$work/m/run/hpfilld/state")"
run 0 --once --pool 2M:node0=60
grep -q "earlier boot" "$work/err" && bad "the earlier boot said again: $(cat "$work/err")"
echo "ok: a state of an earlier boot gives back nothing"
# a command that died after its write, its intent left: a dry run settles it as a fill would
# (the 100 pages are the run's), and plans them given back to the target
printf 'hpfilld-state 1\nboot 66666666-7777-8888-9999-000000000000\nseq 9\nowner once 9 active\npool 2097152 0 60 once=10/60\nintent 2097152 0 60 160 once=100\nend\n' \
        >"$work/m/run/hpfilld/state"
set_nr 160
run 0 --once --dry-run --shrink --pool 2M:node0=100
grep -Eq '^2M +node0 +160 +100 +-60 .* shrink$' "$work/out" ||
        bad "--dry-run did not settle a died command's intent: $(cat "$work/out")"
run 0 --once --shrink --pool 2M:node0=100
[ "$(node_nr 0 2048)" = 100 ] || bad "the fill after the died intent left $(node_nr 0 2048), not 100"
echo "ok: a dry run settles a died command's intent, as the fill does"
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
