# SPDX-License-Identifier: MIT
# shellcheck shell=sh disable=SC3043
# (local: dash and bash both have it)
# Sourced by the unit suite's shell tests: a fake machine under a directory, for hpfilld --root,
# so that no unit test reads the host's /sys, /proc, memory or pools (tests/unit/fake-root.c is
# the C tests' twin).

# bad MESSAGE: a failed check, said; the test goes on and passed() ends it with exit status 1
fails=0
bad() {
        echo "FAIL: $*"
        fails=$((fails + 1))
}
passed() {
        [ "$fails" = 0 ] || exit 1
        echo PASS
}

# work_dir: $work, a directory of the test's own, removed when it exits
work_dir() {
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
}

# run WANT_RC ARG...: $HPFILLD ARG... --root $work/m (the test's fake machine), its output in
# $work/out and $work/err; a failed check (bad) where its exit status is not WANT_RC
run() {
        local want="$1" rc=0
        shift
        "$HPFILLD" "$@" --root "$work/m" >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = "$want" ] || bad "hpfilld $*: exit $rc, expected $want: $(cat "$work/out" "$work/err")"
}

# need_fake_kernel: skips the test (exit 77, saying why) where the fake kernel is not preloaded
need_fake_kernel() {
        case ${LD_PRELOAD:-} in
        *fake-kernel*) ;;
        *) echo "SKIP: not run under the fake kernel (LD_PRELOAD of tests/fakekernel, as meson test does)"; exit 77 ;;
        esac
}

# fake_machine DIR NODES MIB [KB...]: DIR (made anew) holds a machine of NODES NUMA nodes with MIB MiB of
# memory each (two CPUs each), /proc/meminfo their sum, huge page sizes KB... (default 2048
# 1048576) with empty pools, an empty kernel command line and a mount table of /proc alone.
# Its kernel grants every page asked for, unless fake_grant says otherwise.
fake_machine() {
        local dir="$1" nodes="$2" mib="$3" i j kb n p dist
        shift 3
        [ $# -gt 0 ] || set -- 2048 1048576
        rm -rf "$dir"
        n=$dir/sys/devices/system/node
        for i in $(seq 0 $((nodes - 1))); do
                mkdir -p "$n/node$i"
                echo "$((2 * i))-$((2 * i + 1))" >"$n/node$i/cpulist"
                printf 'Node %s MemTotal:       %d kB\nNode %s MemFree:        %d kB\n' \
                        "$i" $((mib * 1024)) "$i" $((mib * 1000)) >"$n/node$i/meminfo"
                dist=""
                for j in $(seq 0 $((nodes - 1))); do
                        if [ "$i" = "$j" ]; then dist="${dist:+$dist }10"; else dist="${dist:+$dist }20"; fi
                done
                echo "$dist" >"$n/node$i/distance"
                : >"$n/node$i/compact"
                for kb; do
                        p=$n/node$i/hugepages/hugepages-${kb}kB
                        mkdir -p "$p"
                        for f in nr_hugepages free_hugepages surplus_hugepages; do echo 0 >"$p/$f"; done
                done
        done
        echo "0-$((nodes - 1))" >"$n/online"
        echo "0-$((nodes - 1))" >"$n/has_memory"
        echo "0-$((2 * nodes - 1))" >"$n/has_cpu"
        mkdir -p "$dir/sys/devices/system/cpu" "$dir/proc/self" "$dir/proc/sys/vm"
        echo "0-$((2 * nodes - 1))" >"$dir/sys/devices/system/cpu/online"
        for kb; do
                p=$dir/sys/kernel/mm/hugepages/hugepages-${kb}kB
                mkdir -p "$p"
                for f in nr_hugepages free_hugepages resv_hugepages surplus_hugepages nr_overcommit_hugepages; do
                        echo 0 >"$p/$f"
                done
        done
        printf 'MemTotal:       %d kB\nMemFree:        %d kB\n' $((nodes * mib * 1024)) $((nodes * mib * 1000)) >"$dir/proc/meminfo"
        echo 67584 >"$dir/proc/sys/vm/min_free_kbytes"
        : >"$dir/proc/sys/vm/compact_memory"
        : >"$dir/proc/sys/vm/drop_caches"
        : >"$dir/proc/cmdline"
        echo "proc /proc proc rw 0 0" >"$dir/proc/self/mounts"
}

# fake_grant DIR NODE KB N: the fake kernel (tests/fakekernel/fake-kernel.c, preloaded into the
# unit tests) grants at most N pages of KB kB on NODE of DIR, whatever count is written
fake_grant() {
        echo "$4" >"$1/sys/devices/system/node/node$2/hugepages/hugepages-$3kB/nr_hugepages.fake-max"
}

# fake_pools DIR: the fake kernel keeps the pools of DIR as the kernel does (a file fake-pools at
# its root): a write of nr_hugepages promotes surplus pages, allocates or frees free pages, and
# free_hugepages, surplus_hugepages and the global counters follow
fake_pools() {
        : >"$1/fake-pools"
}

# fake_write FILE VALUE: VALUE written to a kernel attribute of a fake tree as a program writes
# it (an administrator's echo), taken by the fake kernel: the file is not emptied first, as a
# shell's '>' would empty it before the kernel sees the write
fake_write() {
        echo "$2" 1<>"$1"
}

# fake_in_use DIR NODE KB N: N pages of the pool of KB kB on NODE are in use (a workload maps
# them): its free_hugepages, and the global one, lowered to what is left
fake_in_use() {
        local p="$1/sys/devices/system/node/node$2/hugepages/hugepages-$3kB" f total=0
        echo $(($(cat "$p/nr_hugepages") - $4)) >"$p/free_hugepages"
        for f in "$1"/sys/devices/system/node/node*/hugepages/hugepages-"$3"kB/free_hugepages; do
                total=$((total + $(cat "$f")))
        done
        echo "$total" >"$1/sys/kernel/mm/hugepages/hugepages-$3kB/free_hugepages"
}

# state_share DIR OWNER KB NODE: what OWNER holds and wants of the pool of KB kB on NODE as
# DIR/run/hpfilld/state says, HELD/WANT; "-" where it has no share there
state_share() {
        [ -f "$1/run/hpfilld/state" ] || { echo -; return; }
        awk -v o="$2" -v ps=$(($3 * 1024)) -v n="$4" '
                $1 == "pool" && $2 == ps && $3 == n {
                        for (i = 5; i <= NF; i++) if (index($i, o "=") == 1) s = substr($i, length(o) + 2)
                        if (split(s, f, "/") == 3) s = f[1] "/" f[2] # a claim'"'"'s mark left out
                }
                END { print s == "" ? "-" : s }' "$1/run/hpfilld/state"
}

# state_owner DIR NAME: "active" or "gone" and the pools it asked for (a claim's) as
# DIR/run/hpfilld/state says; "-" where it has no such owner
state_owner() {
        [ -f "$1/run/hpfilld/state" ] || { echo -; return; }
        awk -v o="$2" '$1 == "owner" && $2 == o { $1 = $2 = $3 = ""; s = substr($0, 4) } END { print s == "" ? "-" : s }' \
                "$1/run/hpfilld/state"
}

# rundir_extra DIR NAME...: the files of DIR/run/hpfilld but NAME..., one a line
rundir_extra() {
        local dir="$1/run/hpfilld" f k keep
        shift
        for f in "$dir"/* "$dir"/.*; do
                [ -e "$f" ] || continue
                f=${f##*/}
                keep=
                for k in . .. "$@"; do [ "$f" = "$k" ] && keep=1; done
                [ -n "$keep" ] || echo "$f"
        done
}

# fake_mount DIR WHERE PAGESIZE: a hugetlbfs mount of PAGESIZE (2M, 1024M) at WHERE in DIR's
# mount table, its directory made
fake_mount() {
        mkdir -p "$1$2"
        echo "hugetlbfs $2 hugetlbfs rw,relatime,pagesize=$3 0 0" >>"$1/proc/self/mounts"
}

# check_config HPFILLD ROOT FILE WORK: FILE is accepted by `HPFILLD --once --dry-run` on the fake
# machine ROOT (which changes nothing) and no line of it is named as bad. A fake tree has no
# kernel to fault pages in (under --root hpfilld takes MADV_POPULATE_WRITE as absent), so a
# configuration with [Reserve] sections must fail on the first of them for that reason alone,
# after every line parsed, and pass without them (so an Owner= this machine lacks, which a
# fill refuses, is never reached here: a mount refused is only said, and its line let pass).
# Prints what hpfilld said and returns 1 when not so.
check_config() {
        local hpfilld="$1" root="$2" f="$3" work="$4" first
        first=$(grep -n '^\[Reserve\]' "$f" | head -n 1 | cut -d: -f1)
        if [ -n "$first" ]; then
                if "$hpfilld" --once --dry-run --root "$root" --config "$f" >"$work/out" 2>"$work/err" ||
                        [ "$(grep -v ': this reservation is skipped$' "$work/err")" != \
                                "hpfilld: $f:$first: reservations need MADV_POPULATE_WRITE (Linux 5.14 or later)" ]; then
                        cat "$work/err"
                        return 1
                fi
                awk '/^\[/ { skip = $0 == "[Reserve]" } !skip' "$f" >"$work/pools.conf"
                f=$work/pools.conf
        fi
        if ! "$hpfilld" --once --dry-run --root "$root" --config "$f" >"$work/out" 2>"$work/err"; then
                cat "$work/err"
                return 1
        fi
        if grep "$f:[0-9]" "$work/err" | grep -v ": this reservation is skipped$"; then
                return 1
        fi
}
