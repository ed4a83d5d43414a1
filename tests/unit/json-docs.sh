#!/bin/sh
# SPDX-License-Identifier: MIT
# The JSON documents on a fake machine: `status --json`, `--dry-run --json`, `--once --json` and
# `bench --json` each valid against doc/hpfilld-json.schema.json (those it describes), and each
# command exits 1 naming the error where standard output cannot take the document (/dev/full),
# not 0 with a document cut short; so does `status` in every other format.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
command -v python3 >/dev/null || { echo "SKIP: no python3 for tests/json-validate.py"; exit 77; }
[ -w /dev/full ] || { echo "SKIP: no /dev/full to write to"; exit 77; }
root=$work/m
fake_machine "$root" 2 8192
fake_grant "$root" 1 2048 100

# json DEF ARG...: hpfilld ARG... --root "$root"; its document valid as DEF (or only
# JSON where DEF is -), and the same command into a full standard output fails
json() {
        def=$1
        shift
        rc=0
        "$HPFILLD" "$@" --root "$root" >"$work/out" 2>"$work/err" || rc=$?
        [ "$rc" = 0 ] || [ "$rc" = 3 ] || bad "hpfilld $*: exit $rc: $(cat "$work/err")"
        if [ "$def" = - ]; then
                python3 -m json.tool "$work/out" >/dev/null || bad "hpfilld $*: not JSON: $(cat "$work/out")"
        else
                python3 "$SOURCE_ROOT/tests/json-validate.py" "$SOURCE_ROOT/doc/hpfilld-json.schema.json" "$def" "$work/out" \
                        >/dev/null || bad "hpfilld $*: not a valid $def document: $(cat "$work/out")"
        fi
        full "$@"
        [ "$def" = - ] && def=JSON
        echo "ok: $* (valid as $def; into /dev/full: exit 1)"
}

# full ARG...: hpfilld ARG... --root "$root" into a full standard output: exit 1, the error said
full() {
        rc=0
        "$HPFILLD" "$@" --root "$root" >/dev/full 2>"$work/err" || rc=$?
        [ "$rc" = 1 ] || bad "hpfilld $* >/dev/full: exit $rc, expected 1"
        grep -q "standard output: No space left on device$" "$work/err" ||
                bad "hpfilld $* >/dev/full: the error not said: $(cat "$work/err")"
}

json plan --dry-run --json --pool 2M:1G --pool 1G:node0=1
json report --once --json --pool 2M:1G
# a fill took some time, and says how long (the record it was taken from has gone to the state by then)
"$HPFILLD" --once --json --pool 2M:1G --root "$root" >"$work/out" 2>"$work/err" || true
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["elapsed_seconds"] or 0) > 0)' "$work/out" ||
        bad "--once --json: elapsed_seconds is not a time: $(grep -o '"elapsed_seconds": [^,]*' "$work/out")"
json status status --json
# status's other formats: something to print, and into /dev/full exit 1
for format in "" --format=text --format=prometheus --kubelet; do
        "$HPFILLD" status $format --root "$root" >"$work/out" 2>"$work/err" || bad "status $format: $(cat "$work/err")"
        [ -s "$work/out" ] || bad "status $format printed nothing"
        full status $format
        echo "ok: status $format into /dev/full: exit 1"
done
# the bench on a machine of its own (the pools above are full, node1 at what it grants)
root=$work/b
fake_machine "$root" 1 8192
fake_pools "$root"
json - bench --json --runs 1 --size 8M
# and its table as text: the same error, the same exit status
rc=0
"$HPFILLD" bench --runs 1 --size 8M --root "$root" >/dev/full 2>"$work/err" || rc=$?
[ "$rc" = 1 ] && grep -q "standard output: No space left on device$" "$work/err" ||
        bad "hpfilld bench >/dev/full: exit $rc, expected 1 with the error said: $(cat "$work/err")"
passed
