#!/bin/bash
# SPDX-License-Identifier: MIT
# Every rejected input: exit status 2, a message naming the bad value, the host's pools unchanged.
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
check "--release 'a/b': not a reservation name" --release vm1 a/b
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
check "$conf:1: node77 does not exist" --once --config "$conf"
# control characters in any input reach the log escaped: one record, no forged line
check "$WORK/x\\\\012READY=1.conf: cannot read" --once --config "$WORK/x
READY=1.conf"
[ "$(wc -l <"$WORK/err")" = 1 ] || fail "a newline in a file name split the log record: $(cat "$WORK/err")"
echo PASS
