#!/bin/bash
# SPDX-License-Identifier: MIT
# Every rejected input: exit status 2 (or the one its row says), a message naming the bad value,
# the host's pools unchanged; inputs that others shape (mount tables, files, the kernel command
# line), each with where it is tested.
. "$(dirname "$0")/lib.sh"

pool2m_set 2
before=$(snapshot)
conf="$WORK/bad.conf"

# each case: the expected words in stderr, then the arguments
check() {
        local words=$1
        shift
        expect_rc 2 "$HPFILLD" "$@"
        expect_in "$WORK/err" "$words"
        [ "$(snapshot)" = "$before" ] || fail "'$*' changed the pools"
}

check "--pool 'XL:1'" --once --pool XL:1
check "3M" --once --pool 3M:1
check "offers no 16M pages" --once --pool 16M:1
check "offers no 1G pages|more than its memory" --once --pool 1G:100000
check "2M:0: a target of zero gives the pool.s free pages back: add --shrink" --once --pool 2M:0
check "negative" --once --pool 2M:-4
check "too large" --once --pool 2M:99999999999999999999
check "not a whole number of 2M pages" --once --pool 2M:3M
check "over 100" --once --pool 2M:101%
check "node99 does not exist" --once --pool 2M:node99=1
check "listed twice" --once --pool 2M:node0=1,node0=2
check "empty entry" --once --pool 2M:node0=1,
check "amount is empty" --once --pool 2M:
check "not an amount" --once --pool 2M:12abc
check "more than its memory" --once --pool 2M:100T
check "a second --pool for page size 2M" --once --pool 2M:1 --pool 2048kB:2
check "--mode 'fast'" --once --mode fast --pool 2M:1
check "--min '0'" --once --min 0 --pool 2M:1
check "--min '101'" --once --min 101 --pool 2M:1
check "--threads-per-node 'x'" --once --threads-per-node x --pool 2M:1
check "unknown option '--bogus'" --once --bogus
check "unexpected argument 'extra'" --once extra
check "option '--drop-caches' takes no value" --once --drop-caches=yes --pool 2M:1
check "needs a value" --once --pool
check "--root '/nonexistent'" --once --root /nonexistent --pool 2M:1
# with --root, a message names the path really read
mkdir -p "$WORK/bare/proc"
: >"$WORK/bare/proc/cmdline"
expect_rc 1 "$HPFILLD" --once --root "$WORK/bare/" --pool 2M:1
expect_in "$WORK/err" "$WORK/bare/proc/meminfo: cannot read"
check "--min '9.5%': expected a percentage from 1 to 100" --once --min 9.5% --pool 2M:1
check "--release is done on its own" --once --release vm1
check "--release is done on its own" --release vm1 --check-config
check "--release 'a/b': 'a/b' is not a reservation name \\(only A-Z a-z 0-9 _ \\. - are taken\\)" --release vm1 a/b
check "--check-config and --dry-run" --check-config --dry-run --pool 2M:1
# --release takes several names: each is looked for
expect_rc 1 "$HPFILLD" --release hpfilld-test-none-1 hpfilld-test-none-2
expect_in "$WORK/err" "No reservation 'hpfilld-test-none-1'"
expect_in "$WORK/err" "No reservation 'hpfilld-test-none-2'"
# one spelling of percentages: --min 90 and --min 90% are the same
expect_rc 0 "$HPFILLD" --once --dry-run --min 90% --pool 2M:1

# config files: file:line in the message, nothing applied
printf '[Pool]\nPageSize=2M\nAmount=10\n[Fill]\nMinPercent=200\n' >"$conf"
check "$conf:5: MinPercent=" --once --config "$conf"
printf '[Fill]\nDropCaches=sometimes\n[Pool]\nPageSize=2M\nAmount=10\n' >"$conf"
check "$conf:2: DropCaches= must be yes or no, not 'sometimes'" --once --config "$conf"
printf '[Pool]\nPageSize=2M\nAmount=10\nTypo=1\n' >"$conf"
check "$conf:4: unknown key 'Typo'" --once --config "$conf"
printf '[Pool]\nPageSize=2M\n' >"$conf"
check "$conf:1: \[Pool\] has no Amount=" --once --config "$conf"
printf '[Pool]\nPageSize=2M\nAmount=10\n\0\n' >"$conf"
check "$conf:4: not a text file" --once --config "$conf"
check "$WORK/missing.conf: cannot read" --once --config "$WORK/missing.conf"
check "$WORK: is a directory" --once --config "$WORK"
printf '[Pool]\nPageSize=2M\nAmount=node77=1\n' >"$conf"
check "$conf:3: node77 does not exist" --once --config "$conf"
# control characters in any input reach the log escaped: one record, no forged line
check "$WORK/x\\\\012READY=1.conf: cannot read" --once --config "$WORK/x
READY=1.conf"
[ "$(wc -l <"$WORK/err")" = 1 ] || fail "a newline in a file name split the log record: $(cat "$WORK/err")"
# Inputs others shape. Each row: its exit status, the message naming the input, the pools and
# the files unchanged. The rows whose setup lives with their feature are tested there:
#   a drop-in masked by a symlink to /dev/null, or by an empty file: skipped, masking its
#     namesake, not an error (config.sh)
#   a FIFO as --config and as a drop-in: exit 2 at once under timeout, naming it (config.sh)
#   a kernel command line longer than a page, and longer than the cap, below --root (config.sh)
#   a user's 0777 hpfilld/ on a 1777 hugetlbfs mount: exit 1, the reservation refused naming the
#     directory and its owner, nothing made in it; --release leaves it alone (reserve-shared.sh)
#   Owner=/Group= names not known here: exit 1, that reservation alone fails, naming the
#     setting, the others are made (reserve.sh)
#   a symbolic link or a FIFO in place of a pool counter below --root: exit 1, naming it, the
#     file it points to unchanged (tests/unit/root-writes.sh)
# The rows below run hpfilld in a mount namespace of its own, where nothing else is seen: the
# mounts and the /proc/cmdline put there go with it.
command -v unshare >/dev/null || { echo "SKIP: no unshare for the namespace rows"; exit 77; }
export WORK

# in_ns WANT WORDS SETUP AFTER HPFILLD-ARGS...: in a new mount namespace with no hugetlbfs mount,
# SETUP (bash), hpfilld, then AFTER (what was left, while the namespace's mounts are there)
in_ns() {
        local want=$1 words=$2 setup=$3 after=$4
        shift 4
        expect_rc "$want" timeout 60 unshare -m --propagation private bash -c \
                "set -e; umount -a -t hugetlbfs; $setup; rc=0; \"\$@\" || rc=\$?; $after; exit \$rc" \
                in_ns "$HPFILLD" "$@"
        expect_in "$WORK/err" "$words"
        [ "$(snapshot)" = "$before" ] || fail "'$*' changed the pools"
}

# a hugetlbfs mount whose path holds a newline (\012 in the mount table): not taken, and no
# line of its own reaches the log (a forged READY=1)
ODD="$WORK/mnt
READY=1"
mkdir -p "$ODD"
export ODD
in_ns 2 "^hpfilld: --reserve vm1:2M:4@$first: no hugetlbfs mount for 2M pages" \
        'mount -t hugetlbfs -o pagesize=2M,mode=1777 none "$ODD"; grep -q "mnt.012READY=1 hugetlbfs" /proc/self/mounts' \
        'ls -A "$ODD" >"$WORK/left"' --once --reserve "vm1:2M:4@$first"
! grep -q '^READY=1' "$WORK/err" "$WORK/out" || fail "a mount path's newline made a line of its own"
[ "$(wc -l <"$WORK/err")" = 1 ] || fail "more than one message: $(cat "$WORK/err")"
[ ! -s "$WORK/left" ] || fail "the reservation was made below the odd mount: $(cat "$WORK/left")"

# a user's mount (tmpfs, mode 0777: a FUSE mount would do) at a path whose escaped text is 4095
# (hpfilld's old field width) or 4096 (libhugetlbfs's) characters, then "hugetlbfs": one field,
# the path, however long; its type is tmpfs
long_path() { # DIR WIDTH: a path below DIR, escaped to WIDTH characters then "hugetlbfs"
        local p=$1 esc=${#1}
        while [ $((esc + 241)) -le $(($2 - 40)) ]; do
                p="$p/$(printf '%60s' '')" # 60 spaces: 240 characters as \040
                esc=$((esc + 241))
        done
        printf '%s/%shugetlbfs' "$p" "$(printf '%*s' $(($2 - esc - 1)) '' | tr ' ' a)"
}
for width in 4095 4096; do
        LONG=$(long_path "$WORK/long$width" $width)
        mkdir -p "$LONG"
        export LONG width
        in_ns 2 "^hpfilld: --reserve vm1:2M:4@$first: no hugetlbfs mount for 2M pages" \
                'mount -t tmpfs -o mode=0777 none "$LONG"
                 awk -v w="$width" '"'"'$3 == "tmpfs" && length($2) == w + 9 && substr($2, w + 1) == "hugetlbfs" { f = 1 } END { exit !f }'"'"' /proc/self/mounts' \
                'ls -A "$LONG" >"$WORK/left"' --once --reserve "vm1:2M:4@$first"
        [ ! -s "$WORK/left" ] || fail "the reservation was made in the user's mount: $(cat "$WORK/left")"
done

# the kernel command line itself (bind-mounted over /proc/cmdline) longer than a page: read
# whole, its hpfilld.pool= counts (here a bad one, so nothing changes); beyond the cap: said
{ for i in $(seq 1 700); do printf 'option%s=value ' "$i"; done; echo "hpfilld.pool=2M:node$first=0"; } \
        >"$WORK/cmdline"
[ "$(stat -c %s "$WORK/cmdline")" -gt 8192 ] || fail "the long command line is short"
in_ns 2 "^hpfilld: kernel command line: hpfilld.pool=2M:node$first=0: a target of zero" \
        'mount --bind "$WORK/cmdline" /proc/cmdline' ':' --once
head -c $((1024 * 1024 + 10)) /dev/zero | tr '\0' x >"$WORK/cmdline"
in_ns 2 "^hpfilld: /proc/cmdline: longer than 1048576 bytes" 'mount --bind "$WORK/cmdline" /proc/cmdline' ':' --once
echo PASS
