#!/bin/sh
# SPDX-License-Identifier: MIT
# Sourced by every guest test script inside the VM (busybox sh): strict mode and the checks.
# A guest test fails with the first FAIL line it prints; /init turns its status into QEMU's.
# busybox sh has local; HPFILLD, OUT and ERR are for the test scripts:
# shellcheck disable=SC3043,SC2034
set -eu

HP=/sys/kernel/mm/hugepages
NODES=/sys/devices/system/node
HPFILLD=/bin/hpfilld
OUT=/tmp/out
ERR=/tmp/err

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# node_file N KB FILE: a per-node counter of the KB kB pool
node_file() {
        echo "$NODES/node$1/hugepages/hugepages-$2kB/$3"
}

node_nr() { # node kb
        cat "$(node_file "$1" "$2" nr_hugepages)"
}

expect_eq() { # what got want
        [ "$2" = "$3" ] || fail "$1 is '$2', expected '$3'"
}

# expect_rc WANT CMD...: runs CMD with its output in $OUT and $ERR, shows both, checks the status
expect_rc() {
        local want="$1" rc=0
        shift
        echo "# $*"
        "$@" >"$OUT" 2>"$ERR" || rc=$?
        sed 's/^/  | /' "$OUT" "$ERR"
        [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want"
}

expect_in() { # file extended-regexp
        grep -Eq -- "$2" "$1" || fail "no line matching '$2' in the output of hpfilld"
}

# expect_counts KB N0 N1 ...: node i's pool of KB kB pages holds Ni pages (for i = 0, 1, ...)
expect_counts() {
        local kb="$1" n=0 got want bad=""
        shift
        for want in "$@"; do
                got=$(node_nr "$n" "$kb")
                echo "  node$n: $got ${kb}kB pages (want $want)"
                [ "$got" = "$want" ] || bad="$bad node$n=$got(want $want)"
                n=$((n + 1))
        done
        [ -z "$bad" ] || fail "${kb}kB pages per node:$bad"
}

# set_counts KB N0 N1 ...: writes and reads back each node's pool (setup between cases)
set_counts() {
        local kb="$1" n=0 want
        shift
        for want in "$@"; do
                echo "$want" >"$(node_file "$n" "$kb" nr_hugepages)"
                n=$((n + 1))
        done
        expect_counts "$kb" "$@" >/dev/null
}

# expect_topology HAS_MEMORY HAS_CPU: the node lists are what the QEMU command line asked for
expect_topology() {
        expect_eq has_memory "$(cat $NODES/has_memory)" "$1"
        expect_eq has_cpu "$(cat $NODES/has_cpu)" "$2"
        echo "topology: has_memory $1, has_cpu $2"
}

# expect_clean KB OVERCOMMIT: no surplus pages (global and per node), no reservations, and
# nr_overcommit_hugepages as the test set it
expect_clean() {
        local d="$HP/hugepages-$1kB" f
        expect_eq "surplus_hugepages" "$(cat "$d/surplus_hugepages")" 0
        for f in "$NODES"/node*/hugepages/hugepages-"$1"kB/surplus_hugepages; do
                expect_eq "$f" "$(cat "$f")" 0
        done
        expect_eq "resv_hugepages" "$(cat "$d/resv_hugepages")" 0
        expect_eq "nr_overcommit_hugepages" "$(cat "$d/nr_overcommit_hugepages")" "$2"
}
