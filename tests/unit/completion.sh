#!/bin/bash
# SPDX-License-Identifier: MIT
# The bash completion (completion/hpfilld.bash) as bash calls it: sourced into bash (after
# bash-completion itself where it is installed), then _hpfilld with COMP_WORDS and COMP_CWORD
# split as bash splits a command line (at ':' and '=' too). Page sizes, nodes and reservations
# come from a fake tree given with --root; without it the root is / (not read here).
set -eu
src=${SOURCE_ROOT:?}/completion/hpfilld.bash
. "$(dirname "$0")/fake-tree.sh"
work_dir

fake=$work/root
mkdir -p "$fake/sys/kernel/mm/hugepages/hugepages-2048kB" "$fake/sys/kernel/mm/hugepages/hugepages-1048576kB" \
        "$fake/sys/kernel/mm/hugepages/hugepages-64kB" \
        "$fake/sys/devices/system/node/node0" "$fake/sys/devices/system/node/node1" "$fake/proc" \
        "$fake/dev/hugepages/hpfilld" "$fake/mnt/huge1g/hpfilld" "$fake/run/hpfilld.conf.d" "$fake/run/hpfilld"
printf 'hpfilld-state 1\nseq 3\nowner config 1 active\nowner claim:db2 2 active 2M:1\nowner claim:vm3 3 active 2M:2\nowner claim:old 4 gone\nend\n' \
        >"$fake/run/hpfilld/state"
: >"$fake/run/hpfilld.conf.d/10-admin.conf"
: >"$fake/dev/hugepages/hpfilld/vm1"
: >"$fake/dev/hugepages/hpfilld/vm2"
: >"$fake/mnt/huge1g/hpfilld/db"
printf '%s\n' "proc /proc proc rw 0 0" "hugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0" \
        "none /mnt/huge1g hugetlbfs rw,pagesize=1024M 0 0" >"$fake/proc/mounts"

[ -r /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
# shellcheck source=completion/hpfilld.bash
. "$src"
complete -p hpfilld | grep -q -- '-F _hpfilld hpfilld' || { echo "FAIL: no completion registered"; exit 1; }

# expect "WANT..." WORD...: COMP_WORDS=(WORD...), the cursor on the last one; COMPREPLY, sorted
# and space-joined, must be WANT
expect() {
        local want=$1 got
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        # as in an interactive shell: no set -e (compgen returns 1 when nothing matches)
        set +e
        _hpfilld hpfilld "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        set -e
        got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
        if [ "$got" = "$want" ]; then
                echo "ok: '$*' -> $got"
        else
                echo "FAIL: '$*' completes to '$got', expected '$want'"
                fails=$((fails + 1))
        fi
}

R=(--root "$fake")
expect "status" hpfilld s
expect "bench" hpfilld b
expect "claim" hpfilld cl
expect "unclaim" hpfilld u
# claim's options, and unclaim's names: the claims in the state (not one given back)
expect "--pool" hpfilld claim vm1 --po
expect "node0= node1=" hpfilld claim "${R[@]}" vm1 --pool 2M : ""
expect "db2 vm3" hpfilld unclaim "${R[@]}" ""
expect "vm3" hpfilld unclaim "${R[@]}" v
expect "--lock-timeout" hpfilld unclaim --lo
expect "give-back" hpfilld g
expect "--lock-timeout" hpfilld give-back --l
expect "--config" hpfilld give-back --c
expect "--drop-caches --dry-run" hpfilld --dr
expect "--metrics-file --min --mode" hpfilld --m
expect "--release --reserve --root" hpfilld --r
# the verbs' own options, and no verb in the middle of options
expect "--format" hpfilld status --fo
expect "--page-size" hpfilld bench --pa
expect "--lock-timeout" hpfilld bench --lock
expect "" hpfilld --once st
expect "json prometheus text" hpfilld status --format ""
expect "prometheus" hpfilld status --format = pr
# right after the '=' (bash's word is the "=" itself): the values alone, not "=json"
expect "json prometheus text" hpfilld status --format =
expect "fault" hpfilld --mode f
expect "kmsg stderr" hpfilld --log-target ""
# page sizes and nodes of the tree given with --root
expect "1G: 2M: 64K:" hpfilld "${R[@]}" --pool ""
expect "2M:" hpfilld "${R[@]}" --pool 2
expect "node0= node1=" hpfilld "${R[@]}" --pool 2M : ""
# right after the ':' (bash's word is the ":" itself): the node names alone, not ":node0="
expect "node0= node1=" hpfilld "${R[@]}" --pool 2M :
expect "1G: 2M: 64K:" hpfilld "${R[@]}" --pool =
expect "node0= node1=" hpfilld "${R[@]}" -p 1G : no
# the word bash replaces is "4,node1": after the last "=" it split at
expect "4,node1=" hpfilld "${R[@]}" --pool 2M : node0 = 4,node1
expect "" hpfilld "${R[@]}" --pool 2M : node0 = ""
# --reserve NAME:SIZE:AMOUNT[@nodeN][,owner=...]: the size after the name, the node after '@',
# the keys after a comma, users and groups after owner= and group=
expect "" hpfilld "${R[@]}" --reserve vm
expect "1G: 2M: 64K:" hpfilld "${R[@]}" --reserve vm1 : ""
expect "2M:" hpfilld "${R[@]}" --reserve vm1 : 2
expect "" hpfilld "${R[@]}" --reserve vm1 : 2M : 4
expect "4@node0 4@node1" hpfilld "${R[@]}" --reserve vm1 : 2M : 4@
expect "4@node1" hpfilld "${R[@]}" --reserve vm1 : 2M : 4@node1
expect "4,group= 4,mode= 4,mount= 4,owner=" hpfilld "${R[@]}" --reserve vm1 : 2M : 4,
expect "4@node0,mode= 4@node0,mount=" hpfilld "${R[@]}" --reserve vm1 : 2M : 4@node0,mo
expect "root" hpfilld "${R[@]}" --reserve vm1 : 2M : 4,owner = roo
expect "root" hpfilld "${R[@]}" --reserve vm1 : 2M : 4,owner = ro,group = roo
expect "" hpfilld "${R[@]}" --reserve vm1 : 2M : 4,mode = 06
# mount=: the hugetlbfs mounts of the tree's mount table
expect "/dev/hugepages /mnt/huge1g" hpfilld "${R[@]}" --reserve vm1 : 2M : 4,mount = /
expect "/mnt/huge1g" hpfilld "${R[@]}" --reserve vm1 : 1G : 4,owner = root,mount = /mn
expect "1G 2M 64K" hpfilld bench "${R[@]}" --page-size ""
# reservations in every hugetlbfs mount
expect "db vm1 vm2" hpfilld "${R[@]}" --release ""
expect "vm1 vm2" hpfilld "${R[@]}" --release v
# without --root the tree is the machine's own, /, and --root= is read as --root (the sizes and
# nodes of / are not listed here: a unit test reads nothing of the host's)
root_of() {
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _hpfilld_words
        _hpfilld_root
}
for words in "/|hpfilld --once --pool x" "$fake|hpfilld --root $fake --pool x" "$fake|hpfilld --root=$fake --pool x"; do
        # shellcheck disable=SC2086
        got=$(root_of ${words#*|})
        if [ "$got" = "${words%%|*}" ]; then echo "ok: the root of '${words#*|}': $got"; else
                echo "FAIL: the root of '${words#*|}' is '$got', not ${words%%|*}"
                fails=$((fails + 1))
        fi
done

# every command hpfilld --help lists (its table of commands) is offered, and no other
verbs=$("${HPFILLD:?}" --help | sed -n 's/^ *\(Usage: \)\{0,1\}hpfilld \([a-z][a-z-]*\).*/\2/p' | sort -u | tr '\n' ' ')
COMP_WORDS=(hpfilld "")
COMP_CWORD=1
COMPREPLY=()
set +e
_hpfilld hpfilld "" hpfilld
set -e
offered=$(printf '%s\n' "${COMPREPLY[@]}" | grep -v '^-' | sort -u | tr '\n' ' ')
if [ "$offered" = "$verbs" ]; then echo "ok: the commands of --help offered: $verbs"; else
        echo "FAIL: --help lists the commands '$verbs', completion offers '$offered'"
        fails=$((fails + 1))
fi

# every option hpfilld --help and hpfilld claim --help show is offered (the verbs' ones after
# the verb)
for opt in $({ "${HPFILLD:?}" --help; "$HPFILLD" claim --help; } | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        offered=""
        for verb in "" status bench claim unclaim; do
                COMP_WORDS=(hpfilld $verb "$opt")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMPREPLY=()
                set +e
                _hpfilld hpfilld "$opt" "${COMP_WORDS[COMP_CWORD - 1]}"
                set -e
                printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$opt" && offered=yes
        done
        if [ -n "$offered" ]; then echo "ok: $opt offered"; else echo "FAIL: $opt (in --help) is not offered"; fails=$((fails + 1)); fi
done

passed
