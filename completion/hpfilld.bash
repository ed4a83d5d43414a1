# SPDX-License-Identifier: MIT
# bash completion for hpfilld(8): options, the status, bench, give-back, claim, unclaim and reload verbs,
# the page sizes this kernel offers, NUMA node names, reservation names for --release, --reserve's
# parts (hugetlbfs mounts for mount=), claim names for unclaim.
# shellcheck shell=bash

# _hpfilld_words: _hpfilld_w (the words up to the cursor, with bash's ':' and '=' splits joined
# back: "--pool 2M:node0=4" is one word) and _hpfilld_cw (the index of the current one)
_hpfilld_words() {
        local i t glue=0 n=-1
        _hpfilld_w=()
        for ((i = 0; i <= COMP_CWORD; i++)); do
                t=${COMP_WORDS[i]-}
                if ((n >= 0)) && { [[ $t == [:=] ]] || ((glue)); }; then
                        _hpfilld_w[n]+=$t
                else
                        _hpfilld_w[++n]=$t
                fi
                [[ $t == [:=] ]] && glue=1 || glue=0
        done
        _hpfilld_cw=$n
}

# _hpfilld_root: the --root DIR on the command line, or /
_hpfilld_root() {
        local i
        for ((i = 1; i < _hpfilld_cw; i++)); do
                case ${_hpfilld_w[i]} in
                --root) echo "${_hpfilld_w[i + 1]:-/}"; return ;;
                --root=*) echo "${_hpfilld_w[i]#--root=}"; return ;;
                esac
        done
        echo /
}

# _hpfilld_sizes ROOT: the page sizes under ROOT/sys/kernel/mm/hugepages, as hpfilld names them
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

# _hpfilld_nodes ROOT: the NUMA nodes (node0 node1 ...)
_hpfilld_nodes() {
        local d
        for d in "$1"/sys/devices/system/node/node[0-9]*; do
                [ -d "$d" ] && echo "${d##*/}"
        done
}

# _hpfilld_reservations ROOT: the reservations in every hugetlbfs mount (MOUNT/hpfilld/NAME)
_hpfilld_reservations() {
        local dev mnt type rest f
        while read -r dev mnt type rest; do
                [ "$type" = hugetlbfs ] || continue
                for f in "$1/${mnt#/}"/hpfilld/*; do
                        [ -f "$f" ] && echo "${f##*/}"
                done
        done <"$1/proc/mounts" 2>/dev/null
}

# _hpfilld_mounts ROOT: the hugetlbfs mount points of ROOT's mount table (--reserve's mount=)
_hpfilld_mounts() {
        local dev mnt type rest
        while read -r dev mnt type rest; do
                [ "$type" = hugetlbfs ] && echo "$mnt"
        done <"$1/proc/mounts" 2>/dev/null
}

# _hpfilld_claims ROOT: the claims hpfilld claim made, as the state has them (ROOT/run/hpfilld/state,
# its lines "owner claim:NAME SEQ active ...")
_hpfilld_claims() {
        local kind name seq how rest
        [ -r "$1/run/hpfilld/state" ] || return 0
        while read -r kind name seq how rest; do
                [[ $kind == owner && $name == claim:* && $how == active ]] && echo "${name#claim:}"
        done <"$1/run/hpfilld/state"
}

# _hpfilld_values OPTION CUR ROOT: COMPREPLY, the values of OPTION that start with CUR (whole
# values; 1 when OPTION takes none that can be offered, 2 when it is no option with a value)
_hpfilld_values() {
        local opt=$1 cur=$2 root=$3 last
        case $opt in
        -c | --config | --metrics-file) COMPREPLY=($(compgen -f -- "$cur")) ;;
        --root) COMPREPLY=($(compgen -d -- "$cur")) ;;
        -m | --mode) COMPREPLY=($(compgen -W "auto sysfs fault" -- "$cur")) ;;
        -t | --threads-per-node) COMPREPLY=($(compgen -W "auto" -- "$cur")) ;;
        --log-target) COMPREPLY=($(compgen -W "stderr kmsg" -- "$cur")) ;;
        --format) COMPREPLY=($(compgen -W "text json prometheus" -- "$cur")) ;;
        --page-size) COMPREPLY=($(compgen -W "$(_hpfilld_sizes "$root")" -- "$cur")) ;;
        --release) COMPREPLY=($(compgen -W "$(_hpfilld_reservations "$root")" -- "$cur")) ;;
        -p | --pool)
                # SIZE: first, then node names for the per-node form: 2M:node0=4,node1=
                if [[ $cur != *:* ]]; then
                        COMPREPLY=($(compgen -S : -W "$(_hpfilld_sizes "$root")" -- "$cur"))
                else
                        last=${cur##*[:,]}
                        if [[ $last == *=* ]]; then
                                return 1
                        fi
                        COMPREPLY=($(compgen -P "${cur%"$last"}" -S = -W "$(_hpfilld_nodes "$root")" -- "$last"))
                fi
                compopt -o nospace 2>/dev/null
                ;;
        -r | --reserve)
                # NAME:SIZE:AMOUNT[@nodeN][,owner=USER,group=GROUP,mode=MODE,mount=PATH]
                last=${cur##*,}
                if [[ $cur == *,* ]]; then
                        case $last in
                        owner=*) COMPREPLY=($(compgen -P "${cur%"$last"}owner=" -u -- "${last#owner=}")) ;;
                        group=*) COMPREPLY=($(compgen -P "${cur%"$last"}group=" -g -- "${last#group=}")) ;;
                        mount=*) COMPREPLY=($(compgen -P "${cur%"$last"}mount=" -W "$(_hpfilld_mounts "$root")" -- "${last#mount=}")) ;;
                        *=*) return 1 ;;
                        *) COMPREPLY=($(compgen -P "${cur%"$last"}" -S = -W "owner group mode mount" -- "$last")) ;;
                        esac
                elif [[ $cur == *:*:*@* ]]; then
                        last=${cur##*@}
                        COMPREPLY=($(compgen -P "${cur%"$last"}" -W "$(_hpfilld_nodes "$root")" -- "$last"))
                elif [[ $cur == *:* && $cur != *:*:* ]]; then
                        COMPREPLY=($(compgen -P "${cur%%:*}:" -S : -W "$(_hpfilld_sizes "$root")" -- "${cur#*:}"))
                else
                        return 1
                fi
                compopt -o nospace 2>/dev/null
                ;;
        --min | --size | --runs | --lock-timeout) return 1 ;;
        *) return 2 ;;
        esac
        return 0
}

_hpfilld() {
        local cur prev root verb="" words raw pre i r
        local -a _hpfilld_w
        local _hpfilld_cw
        _hpfilld_words
        cur=${_hpfilld_w[_hpfilld_cw]}
        prev=${_hpfilld_w[_hpfilld_cw - 1]-}
        root=$(_hpfilld_root)
        [[ ${_hpfilld_w[1]-} == @(status|bench|give-back|claim|unclaim|reload) ]] && ((_hpfilld_cw > 1)) && verb=${_hpfilld_w[1]}
        COMPREPLY=()

        if [[ $cur == --*=* ]]; then
                # --option=VALUE
                _hpfilld_values "${cur%%=*}" "${cur#*=}" "$root" || true
                COMPREPLY=("${COMPREPLY[@]/#/${cur%%=*}=}")
        else
                r=0
                _hpfilld_values "$prev" "$cur" "$root" || r=$?
                if [ "$r" = 2 ]; then
                        case $verb in
                        status) words="--json --format --kubelet --root --help" ;;
                        bench) words="--page-size --size --runs --json --lock-timeout --root --help" ;;
                        claim) words="--pool --lock-timeout --root --verbose --quiet --help" ;;
                        unclaim)
                                words="--lock-timeout --root --verbose --quiet --help"
                                [[ $cur != -* ]] && words=$(_hpfilld_claims "$root")
                                ;;
                        give-back) words="--config --lock-timeout --root --help" ;;
                        reload) words="--root --help" ;;
                        *)
                                words="--help --version --once --pool --config --mode --threads-per-node --min
                                       --shrink --drop-caches --reserve --release --dry-run --json --check-config --pools-only --create-mounts
                                       --root --log-target --lock-timeout --metrics-file --verbose --quiet"
                                [ "$_hpfilld_cw" = 1 ] && words="status bench give-back claim unclaim reload $words"
                                ;;
                        esac
                        COMPREPLY=($(compgen -W "$words" -- "$cur"))
                fi
        fi
        # bash replaces only the last piece of a word it split at ':' or '=': hand it that piece.
        # Right after the ':' or '=' the word is the separator itself, and the piece is empty.
        raw=${COMP_WORDS[COMP_CWORD]-}
        [[ $raw =~ ^[:=]+$ ]] && raw=""
        pre=${cur%"$raw"}
        if [ -n "$pre" ]; then
                for i in "${!COMPREPLY[@]}"; do
                        COMPREPLY[i]=${COMPREPLY[i]#"$pre"}
                done
        fi
        return 0
}
complete -F _hpfilld hpfilld
