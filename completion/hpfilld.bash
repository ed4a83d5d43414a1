# SPDX-License-Identifier: MIT
# bash completion for hpfilld(8): options, the status and bench verbs, the page sizes this
# kernel offers, NUMA node names, reservation names for --release.
# shellcheck shell=bash

# _hpfilld_root: the --root DIR given so far on the command line, or /
_hpfilld_root() {
        local i
        for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                --root) echo "${COMP_WORDS[i + 1]:-/}"; return ;;
                --root=*) echo "${COMP_WORDS[i]#--root=}"; return ;;
                esac
        done
        echo /
}

# _hpfilld_sizes ROOT: the page sizes under ROOT/sys/kernel/mm/hugepages, as hpfilld writes
# them (2M, 1G)
_hpfilld_sizes() {
        local d kb
        for d in "$1"/sys/kernel/mm/hugepages/hugepages-*kB; do
                [ -d "$d" ] || continue
                kb=${d##*/hugepages-}
                kb=${kb%kB}
                if ((kb % 1048576 == 0)); then
                        echo "$((kb / 1048576))G"
                elif ((kb % 1024 == 0)); then
                        echo "$((kb / 1024))M"
                else
                        echo "${kb}K"
                fi
        done
}

# _hpfilld_nodes ROOT: the NUMA nodes with memory (node0 node1 ...)
_hpfilld_nodes() {
        local d
        for d in "$1"/sys/devices/system/node/node[0-9]*; do
                [ -d "$d" ] && echo "${d##*/}"
        done
}

# _hpfilld_reservations ROOT: the names of the reservations in every hugetlbfs mount
_hpfilld_reservations() {
        local dev mnt type rest f
        while read -r dev mnt type rest; do
                [ "$type" = hugetlbfs ] || continue
                for f in "$1/${mnt#/}"/hpfilld/*; do
                        [ -f "$f" ] && echo "${f##*/}"
                done
        done <"$1/proc/mounts" 2>/dev/null
}

_hpfilld() {
        local cur prev root verb="" i words
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        root=$(_hpfilld_root)
        for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                status | bench) [ "$i" = 1 ] && verb=${COMP_WORDS[i]} ;;
                esac
        done

        case $prev in
        --root | -c | --config)
                COMPREPLY=($(compgen -f -- "$cur"))
                [ "$prev" = --root ] && COMPREPLY=($(compgen -d -- "$cur"))
                return
                ;;
        --metrics-file)
                COMPREPLY=($(compgen -f -- "$cur"))
                return
                ;;
        -m | --mode)
                COMPREPLY=($(compgen -W "auto sysfs fault" -- "$cur"))
                return
                ;;
        -t | --threads-per-node)
                COMPREPLY=($(compgen -W "auto 1 2 4 8" -- "$cur"))
                return
                ;;
        --log-target)
                COMPREPLY=($(compgen -W "stderr kmsg" -- "$cur"))
                return
                ;;
        --format)
                COMPREPLY=($(compgen -W "text json prometheus" -- "$cur"))
                return
                ;;
        --page-size)
                COMPREPLY=($(compgen -W "$(_hpfilld_sizes "$root")" -- "$cur"))
                return
                ;;
        --release)
                COMPREPLY=($(compgen -W "$(_hpfilld_reservations "$root")" -- "$cur"))
                return
                ;;
        -p | --pool)
                # SIZE: first, then an amount or node names
                if [[ $cur != *:* ]]; then
                        COMPREPLY=($(compgen -S : -W "$(_hpfilld_sizes "$root")" -- "$cur"))
                        compopt -o nospace 2>/dev/null
                else
                        local head=${cur%:*}: node_part=${cur##*:}
                        local pre=${node_part%"${node_part##*,}"}
                        COMPREPLY=($(compgen -P "$pre" -S = -W "$(_hpfilld_nodes "$root")" -- "${node_part##*,}"))
                        # bash splits words at ':' (COMP_WORDBREAKS): only the part after it
                        [[ $COMP_WORDBREAKS == *:* ]] || COMPREPLY=("${COMPREPLY[@]/#/$head}")
                        compopt -o nospace 2>/dev/null
                fi
                return
                ;;
        -r | --reserve | --min | --size | --runs)
                return
                ;;
        esac

        case $verb in
        status) words="--json --format --root --help" ;;
        bench) words="--page-size --size --runs --json --root --help" ;;
        *)
                words="--help --version --once --pool --config --mode --threads-per-node --min
                       --shrink --drop-caches --reserve --release --dry-run --root --log-target
                       --metrics-file --verbose --quiet"
                [ "$COMP_CWORD" = 1 ] && words="status bench $words"
                ;;
        esac
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _hpfilld hpfilld
