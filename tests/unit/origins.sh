#!/bin/sh
# SPDX-License-Identifier: MIT
# Errors that depend on the machine name the line of the key they are about, not the [Pool]
# line above it: a node that does not exist (Amount=), a page size the kernel does not offer
# (PageSize=). A fake machine under --root; a dry run changes nothing.
set -eu
: "${HPFILLD:?}" "${SOURCE_ROOT:?}"
. "$SOURCE_ROOT/tests/unit/fake-tree.sh"
need_fake_kernel
work_dir
fake_machine "$work/m" 2 4096
# dry CONFIG-TEXT MESSAGE: exit status 2, MESSAGE (after the file's name) in the error
dry() {
        printf '%b' "$1" >"$work/a.conf"
        rc=0
        "$HPFILLD" --once --dry-run --root "$work/m" --config "$work/a.conf" >"$work/out" 2>"$work/err" || rc=$?
        if [ "$rc" = 2 ] && grep -qF "hpfilld: $work/a.conf:$2" "$work/err"; then
                echo "ok: $(cat "$work/err")"
        else
                bad "exit $rc, not 'a.conf:$2': $(cat "$work/err")"
        fi
}
dry '[Pool]\nPageSize=2M\nAmount=node77=1\n' "3: node77 does not exist"
dry '# a comment\n[Pool]\nAmount=node0=1\nPageSize=16M\n' "4: this kernel offers no 16M pages"
dry '[Pool]\nPageSize=2M\nAmount=node0=1\n\n[Pool]\nPageSize=1G\nAmount=node5=1\n' "7: node5 does not exist"
passed
