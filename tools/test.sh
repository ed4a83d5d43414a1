#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the dependencies, builds, and runs the whole test suite: unit and root tests with gcc,
# the VM tests (QEMU guests with several NUMA nodes), the Debian package (built, installed by
# apt into a fresh root), unit tests with clang, unit and root tests of a build without any
# optional library, unit and root tests
# under AddressSanitizer+UndefinedBehaviorSanitizer and under ThreadSanitizer. Prints "N passed, N failed, N skipped" at the end; exits non-zero on failure.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh --test

total_ok=0 total_fail=0 total_skip=0
failed_builds=""

# run_suite NAME BUILDDIR SUITES [meson options...]
run_suite() {
        name=$1 dir=$2 suites=$3
        shift 3
        echo "=== $name"
        if ! tools/build.sh "$dir" "$@" >"$dir.build.log" 2>&1; then
                cat "$dir.build.log"
                total_fail=$((total_fail + 1))
                failed_builds="$failed_builds $name(build)"
                return
        fi
        args=""
        for s in $suites; do args="$args --suite $s"; done
        # shellcheck disable=SC2086
        meson test -C "$dir" --print-errorlogs $args || failed_builds="$failed_builds $name"
        log="$dir/meson-logs/testlog.json"
        ok=$(grep -c '"result": "OK"' "$log" || true)
        fail=$(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
        skip=$(grep -c '"result": "SKIP"' "$log" || true)
        total_ok=$((total_ok + ok)) total_fail=$((total_fail + fail)) total_skip=$((total_skip + skip))
}

export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

# the root tests that pause or interrupt a fill run tests/hpfilld-hooked, built with the tests
# from the same objects as hpfilld (tests/hooks/hooks.h): every build here is the installed one
run_suite gcc build "unit root"
run_suite vm build "vm"
run_suite pkg build "pkg"
CC=clang run_suite clang build-clang "unit"
# every optional library left out: the fallbacks (built-in sd_notify, raw capset, no libnuma or
# libhugetlbfs) run the same unit and root tests; the static hpfilld-initramfs, built without them
# too, with its own unit test
run_suite minimal build-minimal "unit root" -Dnuma=disabled -Dhugetlbfs=disabled -Dsystemd=disabled \
        -Dlibcap=disabled -Dman-pages=disabled -Dstatic-initramfs=true
run_suite asan+ubsan build-asan "unit root" -Db_sanitize=address,undefined -Db_lundef=false
run_suite tsan build-tsan "unit root" -Db_sanitize=thread

echo
[ -z "$failed_builds" ] || echo "failed:$failed_builds"
echo "$total_ok passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ] && [ -z "$failed_builds" ]
