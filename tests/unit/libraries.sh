#!/bin/sh
# SPDX-License-Identifier: MIT
# What a run loads before its first write: --version and --help load no library but the C
# library, and an --once that fills by sysfs (a fake tree under --root, one node: nothing to pin,
# no NOTIFY_SOCKET, no reservation) loads none of the optional ones either: libnuma, libsystemd,
# libhugetlbfs and libcap are dlopen()ed where a plan uses them (meson.build). Read from the
# dynamic loader's own account (glibc's LD_DEBUG=files names every object it loads, dlopen()ed or
# not; the unit suite's LD_PRELOADed fake kernel aside). Nothing here touches the host.
set -eu
: "${HPFILLD:?}"
. "$(dirname "$0")/fake-tree.sh"
work_dir

# loaded ARGS...: the names of the objects the loader loaded for hpfilld ARGS, one a line
loaded() {
        LD_DEBUG=files LD_DEBUG_OUTPUT="$work/ld" "$HPFILLD" "$@" >"$work/out" 2>"$work/err" || true
        cat "$work"/ld.* 2>/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u
        rm -f "$work"/ld.*
}
loaded --version >"$work/objects"
grep -q '^libc\.so' "$work/objects" || { echo "SKIP: no LD_DEBUG=files account (not glibc's loader, or a static build)"; exit 77; }

# only() ARGS...: the C library and nothing else
only_libc() {
        loaded "$@" >"$work/objects"
        # the suite's fake kernel, LD_PRELOADed into every unit test, is the test's, not hpfilld's
        # a sanitizer build links its runtime and what that needs: the build's, not a plan's
        extra=$(grep -v '^libc\.so' "$work/objects" | grep -vxF "${LD_PRELOAD:-/}" |
                { if grep -q '^lib[atl]*u*b*san\.so' "$work/objects"; then
                        grep -vE '^lib(asan|ubsan|tsan|lsan|stdc\+\+|m|gcc_s|dl|rt|pthread)\.so'
                  else cat; fi; } | tr '\n' ' ' || true)
        if [ -n "$extra" ]; then
                bad "'hpfilld $*' loaded $extra"
        else
                echo "ok: 'hpfilld $*' loaded $(tr '\n' ' ' <"$work/objects")"
        fi
}
only_libc --version
only_libc --help

# one node of 4 GiB with 2 CPUs, 2M pages, empty
t=$work/t
n=$t/sys/devices/system/node
p=$n/node0/hugepages/hugepages-2048kB
mkdir -p "$p" "$t/sys/kernel/mm/hugepages/hugepages-2048kB" "$t/proc" "$t/etc"
echo 0-1 >"$n/node0/cpulist"
printf 'Node 0 MemTotal:       4194304 kB\nNode 0 MemFree:        4000000 kB\n' >"$n/node0/meminfo"
echo "10" >"$n/node0/distance"
: >"$n/node0/compact"
for f in nr_hugepages free_hugepages surplus_hugepages; do echo 0 >"$p/$f"; done
for f in online has_memory has_cpu; do echo 0 >"$n/$f"; done
echo 0 >"$t/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
: >"$t/proc/cmdline"
only_libc --dry-run --root "$t" --pool 2M:8
only_libc --check-config --root "$t" --pool 2M:8
NOTIFY_SOCKET= only_libc --once --root "$t" --mode sysfs --pool 2M:8
[ "$(cat "$p/nr_hugepages")" = 8 ] || bad "the fill of the fake tree did not run: $(cat "$work/err")"

passed
