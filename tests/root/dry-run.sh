#!/bin/bash
# SPDX-License-Identifier: MIT
# --dry-run prints the plan and changes nothing on the host.
. "$(dirname "$0")/lib.sh"

pool2m_set 3
before=$(snapshot)
expect_rc 0 "$HPFILLD" --once --dry-run --pool 2M:200M
expect_in "$WORK/out" "^SIZE +NODE +NOW +TARGET +DELTA +METHOD +THREADS +ACTION$"
expect_in "$WORK/out" "^2M +node[0-9]+ +[0-9]+ +[0-9]+ +\+[0-9]+ +(sysfs +1|(fault|auto) +[0-9]+) +grow$"
expect_in "$WORK/out" "^2M: auto: sysfs and fault measured on the first pages of each node, the faster carries on; a tie goes to (sysfs|fault) \("
expect_in "$WORK/out" "^Kernel: Linux $(uname -r): HVO (on|off|off \(not in this kernel\)), init_on_alloc (on|off) \(from: (kernel command line|/boot/config|unknown)\)$"
# where init_on_alloc comes from, as the kernel command line shows it (a private mount namespace);
# first on the line: after a "--" (this host has one) a word is init's, not the kernel's
printf 'init_on_alloc=1 %s\n' "$(cat /proc/cmdline)" >"$WORK/cmdline"
expect_rc 0 unshare -m sh -c 'mount --bind "$0" /proc/cmdline && exec "$@"' "$WORK/cmdline" "$HPFILLD" -n --pool 2M:200M
expect_in "$WORK/out" "init_on_alloc on \(from: kernel command line\)$"
expect_rc 0 "$HPFILLD" --once --dry-run --mode fault --pool 2M:200M
if [ "$(cat /proc/sys/vm/hugetlb_optimize_vmemmap 2>/dev/null)" = 1 ]; then
        expect_in "$WORK/out" "^2M: fault: asked for; measured against a sysfs step at the start$"
else
        expect_in "$WORK/out" "^2M: fault: asked for$"
fi
# the pool's 3 pages are another's (an echo): a dry run of --shrink plans what the fill does, and
# keeps them (hpfilld(8), OWNERS)
expect_rc 0 "$HPFILLD" --once -n --shrink --pool "2M:$((BASE_ALL + 2))"
expect_in "$WORK/out" "^2M +node[0-9]+ +$((BASE_ALL + 3)) +$((BASE_ALL + 2)) +\+0 .* larger, kept$"
# the memory budget is never stricter than the kernel (hpfilld(8), MEMORY BUDGET): on a host of
# 10 GiB or more, 8 GiB of 2M pages are planned whatever the nodes' meminfo say (here node0 said
# 6.9 GB of 24 while `echo 4096 > nr_hugepages` got all 4096), and when their counts lag
# /proc/meminfo's it is said, with both numbers
mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
if [ "$mem" -ge $((10 << 20)) ]; then
        expect_rc 0 "$HPFILLD" --once --dry-run --pool 2M:8G
        nodes=0
        for n in $(mem_nodes); do nodes=$((nodes + $(awk '/MemTotal/ { print $4 }' "$NODES/node$n/meminfo"))); done
        # where the counts lag by 2 GiB or more: a plan of the nodes' count and half the rest fits
        # only with what no node counts yet, and says so with both numbers
        if [ "$(mem_nodes | wc -w)" = 1 ] && [ $((mem - nodes)) -ge $((2 << 20)) ]; then
                beyond=$(((nodes + (mem - nodes) / 2) >> 11 << 1)) # MiB, whole 2M pages
                expect_rc 0 "$HPFILLD" --once --dry-run --pool "2M:${beyond}M"
                expect_in "$WORK/err" "^hpfilld: The nodes' meminfo count $((nodes >> 10)) MiB of memory, /proc/meminfo $((mem >> 10)) MiB "
                echo "ok: the node counts $((nodes >> 10)) MiB of the machine's $((mem >> 10)): $beyond MiB planned, and said"
        else
                echo "ok: 8 GiB planned (the node's count does not lag the machine's by 2 GiB here)"
        fi
else
        echo "not checked here: 8 GiB of 2M pages on a host of $((mem >> 10)) MiB"
fi
# the host however --root spells it: the same plan, the same kernel (one decision, root_is_host())
expect_rc 0 "$HPFILLD" -n --pool 2M:200M
cp "$WORK/out" "$WORK/out.host"
for spelling in /. // /sys/..; do
        expect_rc 0 "$HPFILLD" --root "$spelling" -n --pool 2M:200M
        cmp -s "$WORK/out" "$WORK/out.host" || { diff "$WORK/out.host" "$WORK/out"; fail "--root $spelling is not taken for the host"; }
done
[ "$(snapshot)" = "$before" ] || fail "--dry-run changed the pools"
# 4 pages of the run's own on top: a dry run of --shrink gives back those, to its target, and no more
expect_rc 0 "$HPFILLD" --once --pool "2M:$((BASE_ALL + 7))"
expect_rc 0 "$HPFILLD" --once -n --shrink --pool "2M:$((BASE_ALL + 2))"
expect_in "$WORK/out" "^2M +node[0-9]+ +$((BASE_ALL + 7)) +$((BASE_ALL + 3)) +-4 .* shrink$"
echo PASS
