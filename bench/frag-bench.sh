#!/bin/bash
# SPDX-License-Identifier: MIT
# frag-bench: `echo N > nr_hugepages`, `hugeadm --pool-pages-min 2MB:N --hard` and
# `hpfilld --once -q --pool 2M:N` (and the same with --drop-caches) asked for more 2 MiB pages
# than this host's fragmented memory can give: pages obtained and wall time, medians over rounds,
# each tool a separate process, interleaved (the order turns every round).
#
# How to run, as root, from the repository root, on a host with nothing else using much memory
# (it takes nearly all free memory while it runs; only free pool pages may exist beforehand):
#   tools/setup.sh --test && tools/build.sh          # hpfilld in build/, hugeadm, a C compiler
#   bench/frag-bench.sh                              # 8 GiB fragmented, 1 GiB left whole, 3 rounds
#   bench/frag-bench.sh --fragment 2 --leave 256 --rounds 1     # quicker
#   bench/frag-bench.sh --cache 768          # 768 MiB of the whole memory held by clean page cache
# Options: --fragment GB (memory to fragment, default 8), --leave MB (free memory left whole,
# default 1024; the tools are asked for twice that), --rounds R (default 3), --keep K (the helper
# pins 1 of every K 4 KiB pages, default 64), --cache MB (a file of MB in /var/tmp, written once,
# read into the page cache before each tool runs: clean cache on memory that would be whole;
# default 0). Environment: HPFILLD (default build/hpfilld),
# HUGEADM (default: from PATH; empty: left out), CC (default cc).
#
# Every round: tests/frag/fragment (built here) touches about GB of free memory and keeps 1 page
# of every K, and of every 2 MiB block, pinned (first touch of memory is slow where a hypervisor
# backs it lazily: 12-19 s a round for 8 GiB on the project's build machines).
# The 2 MiB blocks still free then (/proc/buddyinfo) but MB are set aside as free pages of the
# pool (B pages; cheap, pool pages are not touched), so that exactly MB stay whole, however much
# memory the host has. Each tool is asked for B + MB pages (twice what is whole), its pages
# beyond B are counted and the pool is put back to B. Then the fragmenter is stopped and the pool
# put back as found. On any error, ^C or SIGTERM, the pool, its overcommit (hugeadm changes it
# when short) and /proc/sys/vm/compact_unevictable_allowed are put back as found. (Killed with
# SIGKILL: the fragmenter still sees its stdin close and goes, but B pages stay in the pool.)
# The first tool of a round may find fewer pages than the next ones: what compaction did for it
# (in the kernel's allocation path, in hpfilld's retry rounds, kcompactd meanwhile) is there for
# them; hence the turning order and the medians.
# The global pool: on a host with several NUMA nodes echo and hugeadm spread pages as the kernel
# does and hpfilld evenly; it is meant for one-node hosts.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
CUA=/proc/sys/vm/compact_unevictable_allowed
HPFILLD=${HPFILLD:-$ROOT/build/hpfilld}
HUGEADM=${HUGEADM-$(command -v hugeadm || true)}
fragment_gb=8 leave_mb=1024 rounds=3 keep=64 cache_mb=0

usage() {
        sed -n "3,16s/^# \{0,1\}//p" "$0" >&2
        exit 2
}
while [ $# -gt 0 ]; do
        case $1 in
        --fragment) fragment_gb=${2:?}; shift 2 ;;
        --leave) leave_mb=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --keep) keep=${2:?}; shift 2 ;;
        --cache) cache_mb=${2:?}; shift 2 ;;
        *) usage ;;
        esac
done
for v in "$fragment_gb" "$leave_mb" "$rounds" "$keep"; do
        [[ $v =~ ^[1-9][0-9]*$ ]] || usage
done
[[ $cache_mb =~ ^[0-9]+$ ]] || usage
[ "$leave_mb" -ge 64 ] || { echo "--leave: at least 64 (MiB)" >&2; exit 2; }

die() {
        echo "frag-bench: $*" >&2
        exit 1
}
rd() { cat "$HP/$1"; }
meminfo_mib() { awk -v k="$1:" '$1 == k { print int($2 / 1024) }' /proc/meminfo; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

[ "$(id -u)" = 0 ] || die "needs root"
[ -d "$HP" ] || die "no 2 MiB pages on this kernel ($HP)"
[ -x "$HPFILLD" ] || die "no $HPFILLD (tools/build.sh, or HPFILLD=)"
if [ $(($(rd nr_hugepages) - $(rd free_hugepages))) -gt 0 ] || [ "$(rd surplus_hugepages)" -gt 0 ] ||
        [ "$(rd resv_hugepages)" -gt 0 ]; then
        die "2 MiB pages are in use or reserved on this host: not touching the pool"
fi
[ -n "$HUGEADM" ] || echo "frag-bench: no hugeadm (package libhugetlbfs-bin): left out" >&2

orig_nr=$(rd nr_hugepages)
orig_oc=$(rd nr_overcommit_hugepages)
orig_cua=$(cat $CUA 2>/dev/null || true)
TMP=$(mktemp -d /tmp/frag-bench.XXXXXX)
CACHE="" # the page cache file: on a disk, where the cache can be dropped (not /tmp on tmpfs)
frag_pid="" frag_in="" tool_pid="" base=$orig_nr want=0

stop_fragmenter() {
        if [ -n "$frag_in" ]; then
                exec {frag_in}>&- # its stdin ends: it frees everything and exits
                frag_in=""
        fi
        if [ -n "$frag_pid" ]; then
                wait "$frag_pid" 2>/dev/null || true
                frag_pid=""
        fi
}

cleanup() {
        local rc=$?
        trap - EXIT INT TERM
        if [ -n "$tool_pid" ]; then # hugeadm or hpfilld, interrupted: before the pool is put back
                kill "$tool_pid" 2>/dev/null || true
                wait "$tool_pid" 2>/dev/null || true
        fi
        if [ -n "$frag_pid" ]; then
                kill "$frag_pid" 2>/dev/null || true
        fi
        stop_fragmenter
        echo "$orig_nr" >"$HP/nr_hugepages" || true
        echo "$orig_oc" >"$HP/nr_overcommit_hugepages" || true
        [ -z "$orig_cua" ] || echo "$orig_cua" >$CUA || true
        [ "$(rd nr_hugepages)" = "$orig_nr" ] || echo "frag-bench: the pool holds $(rd nr_hugepages) pages, not $orig_nr as found" >&2
        rm -rf "$TMP"
        [ -z "$CACHE" ] || rm -f "$CACHE"
        exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${CC:-cc}" -O2 -Wall -Wextra -Werror -o "$TMP/fragment" "$ROOT/tests/frag/fragment.c"
if [ "$cache_mb" -gt 0 ]; then
        CACHE=$(mktemp /var/tmp/frag-bench-cache.XXXXXX)
        dd if=/dev/zero of="$CACHE" bs=1M count="$cache_mb" conv=fsync status=none
fi

echo "frag-bench: MemFree $(meminfo_mib MemFree) MiB; fragmenting about $fragment_gb GiB a round (1 page in $keep" \
        "kept), $leave_mb MiB left whole, each tool asked for $leave_mb pages beyond those set aside; $rounds round(s)"

# whole_mib: free memory in free blocks of 2 MiB or more (order 9 and up of 4 KiB pages), all zones
whole_mib() {
        awk '{ for (k = 9; k + 5 <= NF; k++) kb += $(k + 5) * 4 * 2 ^ k } END { print int(kb / 1024) }' /proc/buddyinfo
}

# start_fragmenter: the helper, held by its stdin (a fifo we keep open); waits for "fragmented"
start_fragmenter() {
        local line="" t0 spare
        spare=$(($(meminfo_mib MemFree) - fragment_gb * 1024))
        [ "$spare" -ge "$leave_mb" ] || spare=$leave_mb
        rm -f "$TMP/in" "$TMP/out"
        mkfifo "$TMP/in" "$TMP/out"
        t0=$(now_ms)
        "$TMP/fragment" --leave "$spare" --keep "$keep" <"$TMP/in" >"$TMP/out" 2>"$TMP/frag.err" &
        frag_pid=$!
        exec {frag_in}>"$TMP/in"
        read -r line <"$TMP/out" || true
        sed 's/^/  | /' "$TMP/frag.err"
        [[ $line == "fragmented "* ]] || die "the fragmenter failed (read '$line')"
        echo "  fragmented in $(($(now_ms) - t0)) ms, ${line#fragmented } MiB pinned; MemFree $(meminfo_mib MemFree) MiB"
}

# set_aside: all free 2 MiB blocks but $leave_mb worth into the pool, as free pages: B
set_aside() {
        local whole aside
        whole=$(whole_mib)
        aside=$(((whole - leave_mb) / 2))
        [ "$aside" -gt 0 ] || aside=0
        echo $((orig_nr + aside)) >"$HP/nr_hugepages"
        base=$(rd nr_hugepages)
        want=$((base + leave_mb))
        echo "  whole: $whole MiB; $((base - orig_nr)) pages set aside (B = $base), $(whole_mib) MiB whole left;" \
                "the tools are asked for $want pages"
}

# reset: the pool back to B pages and the overcommit as found; anything else is someone else's
reset_pool() {
        echo "$base" >"$HP/nr_hugepages"
        echo "$orig_oc" >"$HP/nr_overcommit_hugepages"
        [ "$(rd nr_hugepages)" = "$base" ] || die "the pool holds $(rd nr_hugepages) pages after a reset to $base: someone else is using it"
}

# run_tool NAME: asks for $want pages with NAME; appends "pages ms" to $TMP/NAME. The commands run
# in the background, waited for: a signal to the bench is handled at once, not after them.
run_tool() {
        local name=$1 t0 t1 rc=0 got note=""
        # the same state for every tool: the cache file back in the page cache (after a drop)
        [ -z "$CACHE" ] || cat "$CACHE" >/dev/null
        t0=$(now_ms)
        case $name in
        echo) if ! echo "$want" >"$HP/nr_hugepages"; then rc=1; fi ;;
        hugeadm) "$HUGEADM" --pool-pages-min "2MB:$want" --hard >"$TMP/tool.out" 2>&1 & ;;
        hpfilld) "$HPFILLD" --once -q --pool "2M:$want" >"$TMP/tool.out" 2>&1 & ;;
        hpfilld-drop) "$HPFILLD" --once -q --drop-caches --pool "2M:$want" >"$TMP/tool.out" 2>&1 & ;;
        esac
        if [ "$name" != echo ]; then
                tool_pid=$!
                wait "$tool_pid" || rc=$?
                tool_pid=""
        fi
        t1=$(now_ms)
        got=$(($(rd nr_hugepages) - base))
        case $name:$rc in
        echo:0 | hugeadm:0 | hpfilld*:0 | hpfilld*:3) ;;
        *) cat "$TMP/tool.out" >&2; die "$name exited $rc" ;;
        esac
        [[ $name != hpfilld* ]] || note=" ($("$HPFILLD" status | sed -n 's/^ *2M pool: //p' | tail -n 1))"
        [ "$name" != hugeadm ] || note=" (nr_overcommit_hugepages left at $(rd nr_overcommit_hugepages))"
        echo "  $name: $got pages in $((t1 - t0)) ms$note"
        echo "$got $((t1 - t0))" >>"$TMP/$name"
        reset_pool
}

tools=(echo hpfilld hpfilld-drop)
[ -z "$HUGEADM" ] || tools=(echo hugeadm hpfilld hpfilld-drop)
for ((r = 0; r < rounds; r++)); do
        echo "round $((r + 1)):"
        start_fragmenter
        set_aside
        for ((i = 0; i < ${#tools[@]}; i++)); do
                run_tool "${tools[(i + r) % ${#tools[@]}]}"
        done
        kill -0 "$frag_pid" 2>/dev/null || die "the fragmenter was gone before the round ended (the OOM killer?): figures not kept"
        stop_fragmenter
        echo "$orig_nr" >"$HP/nr_hugepages"
        [ -z "$orig_cua" ] || [ "$(cat $CUA)" = "$orig_cua" ] || die "$CUA is $(cat $CUA) after the fragmenter, not $orig_cua"
done

median() { # column of $TMP/tool
        awk -v c="$1" '{ print $c }' "$2" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo
echo "fragmented ~$fragment_gb GiB (1 page in $keep pinned), $leave_mb MiB whole (of it $cache_mb MiB page cache);" \
        "pages beyond B of $leave_mb asked; $rounds round(s)"
printf "%-12s %14s %12s   %s\n" tool "pages (median)" "ms (median)" "rounds: pages/ms"
for t in "${tools[@]}"; do
        printf "%-12s %14s %12s   %s\n" "$t" "$(median 1 "$TMP/$t")" "$(median 2 "$TMP/$t")" "$(tr ' \n' '/ ' <"$TMP/$t")"
done
