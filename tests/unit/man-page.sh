#!/bin/bash
# SPDX-License-Identifier: MIT
# hpfilld(8) documents what the built binary's --help says, and stays short enough to read:
# - every command of the usage lines (hpfilld [OPTIONS...], --once, --check-config, --release,
#   give-back, status, claim, unclaim, bench, and reload from its own --help) has an entry of
#   its own under COMMANDS (a term line "*hpfilld CMD*...");
# - every --option (and its -x) of hpfilld --help has a term of its own under OPTIONS; an option
#   of a command's --help has one there or is named in that command's entry;
# - every value an option lists (auto|sysfs|fault, stderr|kmsg, text|json|prometheus) is named;
# - every exit status a --help names has a term under EXIT STATUS, and every --help names its
#   exit statuses; --root is described alike wherever a --help describes it;
# - the sections a manual has are there, and the page is at most 4800 words as a reader sees it
#   (scdoc, then man at 80 columns; where either is missing, the words of the source).
# Reads the man page source and the binary's --help only. MAN_PAGE_DEBUG=1 prints what it found.
set -eu
: "${HPFILLD:?}"
page=${SOURCE_ROOT:?}/man/hpfilld.8.scd
. "$(dirname "$0")/fake-tree.sh"
work_dir

# section NAME: the lines of the page's "# NAME" section
section() {
        awk -v want="# $1" '/^# / { inside = ($0 == want); next } inside' "$page"
}
section COMMANDS >"$work/commands"
section OPTIONS >"$work/options"
section 'EXIT STATUS' >"$work/exit"

for s in NAME SYNOPSIS DESCRIPTION 'COMMON CASES' COMMANDS OPTIONS 'EXIT STATUS' FILES 'SEE ALSO'; do
        grep -qx "# $s" "$page" || bad "no section '# $s' in hpfilld.8.scd"
done
# the length: the rendered page's words, or, where it cannot be rendered here, the source's (a few
# fewer: the same limit holds it a little looser)
max_words=4800
if command -v scdoc >/dev/null && command -v man >/dev/null && scdoc <"$page" >"$work/hpfilld.8" &&
        MANWIDTH=80 man -l "$work/hpfilld.8" >"$work/hpfilld.8.txt" 2>/dev/null && [ -s "$work/hpfilld.8.txt" ]; then
        words=$(wc -w <"$work/hpfilld.8.txt")
        counted="hpfilld(8) renders to $words words (MANWIDTH=80 man)"
else
        words=$(wc -w <"$page")
        counted="hpfilld.8.scd has $words words (no scdoc or man to render it)"
fi
[ "$words" -le "$max_words" ] || bad "$counted, more than $max_words: a manual a user reads in ten minutes"

# entries: "CMD<TAB>LINE" for every line under COMMANDS, CMD the command of the entry it is in
# (daemon for "*hpfilld* [_OPTIONS_]"); a term line is one that starts without a tab
awk '
        /^[^\t]/ {
                cmd = ""
                if ($0 ~ /^\*hpfilld\* \[_OPTIONS_\]/) cmd = "daemon"
                else if (match($0, /^\*hpfilld [a-z-]+\*/)) cmd = substr($0, 10, RLENGTH - 10)
        }
        cmd != "" { print cmd "\t" $0 }
' "$work/commands" >"$work/entries"

# helps: each --help, by the command it is for
for cmd in main claim unclaim give-back status bench reload; do
        if [ "$cmd" = main ]; then
                "$HPFILLD" --help >"$work/help.$cmd" || bad "hpfilld --help exited $?"
        else
                "$HPFILLD" "$cmd" --help >"$work/help.$cmd" || bad "hpfilld $cmd --help exited $?"
        fi
        [ -s "$work/help.$cmd" ] || bad "hpfilld $cmd --help printed nothing"
done

checked=0
# the commands: the first word after "hpfilld" in every usage line
for cmd in main claim unclaim give-back status bench reload; do
        sed -n 's/^\(Usage:\)\{0,1\} *hpfilld \([^ ]*\).*/\2/p' "$work/help.$cmd"
done | sort -u >"$work/cmds"
grep -qx reload "$work/cmds" || bad "no usage line names reload"
while read -r c; do
        [ "$c" != '[OPTIONS...]' ] || c=daemon
        cut -f1 "$work/entries" | grep -qx -- "$c" || bad "${c}: no entry under COMMANDS"
        checked=$((checked + 1))
done <"$work/cmds"

# the options: "CMDS OPTION SHORT" from the option lines and the usage lines of each --help, CMDS
# the commands they are for: a usage line's own (main for a fill's), an option line's those of
# its help's usage lines (claim --help is unclaim's too)
verbs() { sed -n 's/^\(Usage:\)\{0,1\} *hpfilld \([a-z][a-z-]*\).*/\2/p' "$1" | sort -u | paste -sd, -; }
for cmd in main claim unclaim give-back status bench reload; do
        cmds=main
        [ "$cmd" = main ] || cmds=$(verbs "$work/help.$cmd")
        # option lines: "  -p --pool ..." or "     --once ..."
        sed -n 's/^ \{1,\}\(-[a-zA-Z] \{1,\}\)\{0,1\}\(--[a-z][a-z-]*\).*/\2 \1/p' "$work/help.$cmd" |
                while read -r long short; do echo "${cmds:-main} $long ${short:--}"; done
        # usage lines: the options of "hpfilld VERB ..." are VERB's
        grep -E '^(Usage:)? *hpfilld ' "$work/help.$cmd" | while read -r line; do
                verb=$(echo "$line" | sed -n 's/^\(Usage:\)\{0,1\} *hpfilld \([a-z][a-z-]*\).*/\2/p')
                echo "$line" | sed 's/(see [^)]*)//' | grep -oE -- '--[a-z][a-z-]*' |
                        while read -r long; do echo "${verb:-main} $long -"; done
        done
done | sort -u >"$work/opts"
while read -r cmds long short; do
        term="^\*(-[a-zA-Z]\*, \*)?$long\*"
        [ "$short" = - ] || term="^\*$short\*, \*$long\*"
        in_entry=no
        for c in ${cmds//,/ }; do
                [ "$c" != main ] || continue
                awk -F '\t' -v c="$c" '$1 == c { print $2 }' "$work/entries" | grep -qF -- "*$long*" && in_entry=yes
        done
        if grep -qE -- "$term" "$work/options" || [ "$in_entry" = yes ]; then
                :
        elif [ "$short" != - ] && grep -qE -- "^\*$long\*" "$work/options"; then
                bad "$long: its term under OPTIONS does not name $short ('*$short*, *$long*')"
        else
                bad "$long ($cmds): no term under OPTIONS$([ "$cmds" = main ] || echo " nor in the entry of $cmds")"
        fi
        checked=$((checked + 1))
done <"$work/opts"
# the option lines parsed (else every check above passed on nothing)
grep -q '^main --pool -p$' "$work/opts" || bad "the option lines of hpfilld --help no longer parse here (no -p --pool)"

# the values an option lists: --mode auto|sysfs|fault, --format=text|json|prometheus
cat "$work"/help.* | grep -oE -- '--[a-z-]+[ =][a-zA-Z]+(\|[a-zA-Z]+)+' | sed 's/^--[a-z-]*[ =]//' |
        tr '|' '\n' | grep -x '[a-z]*' | sort -u >"$work/values"
while read -r v; do
        grep -qF -- "*$v*" "$page" || bad "the value '$v' (--help) is not named in hpfilld.8.scd"
        checked=$((checked + 1))
done <"$work/values"
grep -qx kmsg "$work/values" || bad "no option values found in the --help texts (kmsg)"

# the exit statuses: "Exit status: 0 ..., 1 ..." paragraphs
for cmd in main claim unclaim give-back status bench reload; do
        sed -n '/^Exit status:/,/^$/p' "$work/help.$cmd"
done | grep -oE '(^|[ ,(])[0-9] [a-z(]' | grep -oE '[0-9]' | sort -u >"$work/statuses"
[ "$(wc -l <"$work/statuses")" -ge 4 ] || bad "fewer than 4 exit statuses found in the --help texts"
for cmd in main claim unclaim give-back status bench reload; do
        grep -q '^Exit status: [0-9a-z]' "$work/help.$cmd" || bad "hpfilld $cmd --help: no 'Exit status:' paragraph"
        grep -h '^ *--root DIR ' "$work/help.$cmd" | sed 's/  */ /g'
done | sort -u >"$work/root-lines"
[ "$(wc -l <"$work/root-lines")" = 1 ] || bad "--root described differently: $(cat "$work/root-lines")"
while read -r n; do
        grep -qx "\*$n\*" "$work/exit" || bad "exit status $n: no term under EXIT STATUS"
        checked=$((checked + 1))
done <"$work/statuses"

echo "checked $checked commands, options, values and exit statuses; $counted"
[ -z "${MAN_PAGE_DEBUG:-}" ] || cat "$work/cmds" "$work/opts" "$work/values" "$work/statuses"
passed
