#!/bin/bash
# SPDX-License-Identifier: MIT
# The real consumer, end to end: hpfilld makes a 256 MiB reservation of 2 MiB pages in the HOST's
# pool, and QEMU boots a TCG guest (the VM tests' kernel and initramfs) whose whole RAM is that
# file, mapped as the recipe doc/recipes/qemu/memory.args says (its -object and -machine, with
# this test's size and file):
#   -object memory-backend-file,id=mem0,size=256M,mem-path=FILE,share=on,prealloc=on
#   -machine q35,memory-backend=mem0
# prealloc=on makes QEMU touch every page before the guest starts: a page missing from the file
# would be allocated from the pool then. While the guest is up (it waits on a second serial port
# until the host has looked), the host checks:
#   - the 2 MiB pool (free, reserved, surplus, total; globally, per node and in /proc/meminfo) is
#     exactly as it was before QEMU started: the guest's RAM is the reservation's pages;
#   - QEMU maps the file with all 256 MiB resident, and the file still holds its 128 pages;
#   - the file holds a string that only the running guest can have written to its RAM (a hash of
#     a nonce on its kernel command line).
# Then QEMU exits, the reservation is released and the pools and hpfilld's state are put back as
# found.
#
# This test changes the host's pools: that part holds the host lock (/tmp/hpfilld-host.lock, or
# HPFILLD_HOST_LOCK), unless a process this test runs under holds it already
# (flock /tmp/hpfilld-host.lock meson test --suite vm).
# VM_APPEND is read by lib.sh's vm_run:
# shellcheck disable=SC2034
. "$(dirname "$0")/lib.sh"

SOURCE_ROOT=${SOURCE_ROOT:-$(cd "$VM_DIR/../.." && pwd)}
RECIPE=$SOURCE_ROOT/doc/recipes/qemu/memory.args
[ -r "$RECIPE" ] || fail "no $RECIPE (SOURCE_ROOT=$SOURCE_ROOT)"
MIB=256
PAGES=$((MIB / 2))
G=/sys/kernel/mm/hugepages/hugepages-2048kB
NODES=/sys/devices/system/node
[ -d "$G" ] || { echo "SKIP: no 2 MiB huge pages on the host kernel"; exit 77; }
command -v sha256sum >/dev/null || cannot_run "no sha256sum"
NAME=vm-consumer-$$
MNT=$WORK/huge
FILE=""
HOLDS_RESERVATION=no
HANDSHAKE_PID=""
NONCE=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
PROOF="hpfilld-consumer-wrote-$(printf %s "$NONCE" | sha256sum | cut -d' ' -f1)"

# The guest: its RAM is 256 MiB, it writes the proof into it (tmpfs), says so on ttyS1 and waits
# there until the host has looked.
vm_guest <<'EOF'
mem_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo)
echo "consumer: guest MemTotal $mem_kb kB"
[ "$mem_kb" -gt $((192 << 10)) ] && [ "$mem_kb" -le $((256 << 10)) ] || fail "MemTotal $mem_kb kB: not the 256 MiB QEMU was given"
nonce=$(sed -n 's/.*consumer\.nonce=\([0-9a-f]*\).*/\1/p' /proc/cmdline)
[ -n "$nonce" ] || fail "no consumer.nonce= on the kernel command line"
echo "hpfilld-consumer-wrote-$(printf %s "$nonce" | sha256sum | cut -d' ' -f1)" >/tmp/proof
exec 3<>/dev/ttyS1
stty raw -echo <&3
echo "up $(cut -d' ' -f1 /proc/uptime)" >&3
IFS= read -r answer <&3
echo "consumer: the host says '$answer'"
expect_eq "the host's answer" "$answer" go
grep -q '^hpfilld-consumer-wrote-' /tmp/proof || fail "the proof is gone from /tmp"
echo "consumer: all checks passed"
EOF

# pool_state: every 2 MiB pool counter of the host, one NAME=VALUE a line
pool_state() {
        local f
        for f in "$G"/{nr,free,resv,surplus}_hugepages "$NODES"/node*/hugepages/hugepages-2048kB/{nr,free,surplus}_hugepages; do
                [ -r "$f" ] && echo "$f=$(cat "$f")"
        done
        # /proc/meminfo's HugePages_* are those of the default size
        if grep -q '^Hugepagesize: *2048 kB$' /proc/meminfo; then
                grep '^HugePages_' /proc/meminfo | tr -s ' ' | sed 's/: /=/'
        fi
}

# host_lock: the host lock on fd 8, held until the test ends; not taken again when a process this
# test runs under holds it (flock(1)'s pid is in /proc/locks)
host_lock() {
        local lock=${HPFILLD_HOST_LOCK:-/tmp/hpfilld-host.lock} id holder p
        exec 8>>"$lock"
        flock -n 8 && return 0
        id=$(stat -c '%Hd %Ld %i' "$lock" | { read -r ma mi ino; printf '%02x:%02x:%s' "$ma" "$mi" "$ino"; })
        for holder in $(awk -v id="$id" '$2 == "FLOCK" && $6 == id { print $5 }' /proc/locks); do
                for ((p = $$; p > 1; p = $(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 1))); do
                        if [ "$p" = "$holder" ]; then
                                echo "host lock $lock: held by pid $holder ($(cat "/proc/$holder/comm")), which this test runs under"
                                exec 8>&-
                                return 0
                        fi
                done
        done
        echo "host lock $lock: waiting for pid(s) $(awk -v id="$id" '$2 == "FLOCK" && $6 == id { printf "%s ", $5 }' /proc/locks)"
        flock 8
}

# Put back: QEMU gone first (it maps the file), then the reservation, the pools, the mount.
consumer_cleanup() {
        local rc=$? f v
        [ -z "$HANDSHAKE_PID" ] || { kill "$HANDSHAKE_PID" 2>/dev/null; wait "$HANDSHAKE_PID" 2>/dev/null; } || true
        if [ -n "$VM_QEMU_PID" ]; then
                kill "$VM_QEMU_PID" 2>/dev/null || true
                wait "$VM_QEMU_PID" 2>/dev/null || true
                VM_QEMU_PID=""
        fi
        if [ "$HOLDS_RESERVATION" = yes ]; then
                "$HPFILLD" --release "$NAME" || echo "cleanup: hpfilld --release $NAME failed" >&2
        fi
        if [ -s "$WORK/saved" ]; then
                # per-node counts first, then the global ones
                grep "^$NODES" "$WORK/saved" | while read -r f v; do echo "$v" >"$f" || true; done
                grep -v "^$NODES" "$WORK/saved" | while read -r f v; do echo "$v" >"$f" || true; done
                # and hpfilld's state as found: its owners' pages as they were, its last fill the
                # host's, not this test's (the pools are back, as it says)
                if [ -e "$WORK/state.found" ]; then
                        cp -p "$WORK/state.found" "$STATE" || true
                elif [ -e "$WORK/state.none" ]; then
                        rm -f "$STATE"
                fi
        fi
        if mountpoint -q "$MNT"; then
                rmdir "$MNT/hpfilld" 2>/dev/null || true
                umount "$MNT" || true
        fi
        # vm_cleanup takes the status from $?
        set +e
        (exit "$rc")
        vm_cleanup
}
trap consumer_cleanup EXIT

# vm_run's guest, started on the reservation as the recipe says: the file as all of its RAM; and
# ttyS1, a pipe to the host ($WORK/ctl.in, $WORK/ctl.out), for the handshake
vm_numa() {
        local opt val
        VM_NUMA=()
        while read -r opt val; do
                case $opt in
                -object)
                        [[ $val == memory-backend-file,*,share=on,* ]] || fail "$RECIPE: '$val' does not map the file shared"
                        val=$(sed -e "s|,size=[^,]*|,size=${MIB}M|" -e "s|,mem-path=[^,]*|,mem-path=$FILE|" <<<"$val")
                        ;;
                -machine) ;;
                -m) continue ;; # vm_qemu's: the size of the backend
                *) fail "$RECIPE: '$opt $val' is not for this test" ;;
                esac
                VM_NUMA+=("$opt" "$val")
        done < <(grep -v '^#' "$RECIPE")
        VM_NUMA+=(-chardev "pipe,id=ctl,path=$WORK/ctl" -device "isa-serial,chardev=ctl")
        VM_MEM=$MIB
        VM_SMP=1
        echo "QEMU: ${VM_NUMA[*]}"
}

# handshake: on the guest's "up", compares the pools with $WORK/before into $WORK/while-up, looks
# at QEMU's mapping and the file, then lets the guest go on. The FIFOs are opened read-write: no
# open waits for QEMU.
handshake() {
        local line qemu
        exec 5<>"$WORK/ctl.out" 6<>"$WORK/ctl.in"
        IFS= read -r -t "$VM_TIMEOUT" line <&5 || { echo "handshake: no word from the guest" >"$WORK/while-up"; return 1; }
        line=${line%$'\r'}
        {
                echo "guest: $line"
                pool_state >"$WORK/during"
                diff -U0 "$WORK/before" "$WORK/during" | sed -n 's/^[-+][^-+]/  &/p'
                cmp -s "$WORK/before" "$WORK/during" && echo "pools: unchanged"
                qemu=$(grep -lF " $FILE" /proc/[0-9]*/maps 2>/dev/null | cut -d/ -f3 | head -n 1)
                if [ -n "$qemu" ]; then
                        echo "mapped by: $(cat "/proc/$qemu/comm")"
                        # smaps counts a page mapped by one process only as Private_Hugetlb, even
                        # in a MAP_SHARED mapping
                        awk -v f="$FILE" '$NF == f { on = 1; next } /^[0-9a-f]+-[0-9a-f]+ / { on = 0 }
                                on && /^(Shared|Private)_Hugetlb:/ { kb += $2 }
                                END { print "mapped: " kb + 0 " kB" }' "/proc/$qemu/smaps"
                fi
                echo "file blocks: $(stat -c %b "$FILE")"
                echo "proof: $(grep -caF "$PROOF" "$FILE" || true)"
        } >"$WORK/while-up" 2>&1
        echo go >&6
}

mkfifo "$WORK/ctl.in" "$WORK/ctl.out"
mkdir -p "$MNT"

host_lock
STATE=/run/hpfilld/state
if [ -e "$STATE" ]; then cp -p "$STATE" "$WORK/state.found"; else : >"$WORK/state.none"; fi
: >"$WORK/saved"
for f in "$G"/nr_hugepages "$G"/nr_overcommit_hugepages "$NODES"/node*/hugepages/hugepages-2048kB/nr_hugepages; do
        [ -r "$f" ] && printf '%s %s\n' "$f" "$(cat "$f")" >>"$WORK/saved"
done
mount -t hugetlbfs -o pagesize=2M none "$MNT" || cannot_run "cannot mount hugetlbfs on $MNT"

# the reservation: the pool grown by its pages, which it then holds
target=$(($(cat "$G/nr_hugepages") + PAGES))
free0=$(cat "$G/free_hugepages")
HOLDS_RESERVATION=yes
"$HPFILLD" --once --pool "2M:$target" --reserve "$NAME:2M:${MIB}M" >"$WORK/out" 2>&1 || {
        cat "$WORK/out"
        fail "hpfilld --once --pool 2M:$target --reserve $NAME:2M:${MIB}M failed"
}
cat "$WORK/out"
FILE=$(sed -n "s|^$NAME reservation: $PAGES/$PAGES 2M pages in .* at \(/.*/hpfilld/$NAME\)\$|\1|p" "$WORK/out")
[ -n "$FILE" ] || fail "no '$NAME reservation: $PAGES/$PAGES 2M pages ... at FILE' line"
[ "$(stat -c '%s %a %U' "$FILE")" = "$((MIB << 20)) 600 root" ] || fail "$FILE: $(stat -c '%s %a %U' "$FILE")"
blocks=$(((MIB << 20) / 512))
[ "$(stat -c %b "$FILE")" = "$blocks" ] || fail "$FILE holds $(stat -c %b "$FILE") blocks, not $blocks: not all its pages"
[ "$(cat "$G/free_hugepages")" = "$free0" ] || fail "free 2M pages: $(cat "$G/free_hugepages"), expected $free0 (the new pages in the file)"
pool_state >"$WORK/before"
echo "--- before QEMU"
cat "$WORK/before"

handshake &
HANDSHAKE_PID=$!
VM_APPEND="consumer.nonce=$NONCE"
vm_run reservation
wait "$HANDSHAKE_PID" || true
HANDSHAKE_PID=""
echo "--- while the guest was up"
cat "$WORK/while-up"
vm_expect_log "^hpfilld-vm: guest up at "
vm_expect_log "^consumer: the host says 'go'$"
vm_expect_log "^consumer: all checks passed$"
grep -q "^guest: up " "$WORK/while-up" || fail "the host never heard from the guest on ttyS1"
grep -q "^pools: unchanged$" "$WORK/while-up" ||
        fail "the host's 2M pool changed while the guest ran on the reservation (above): the guest did not get the file's pages"
grep -q "^mapped by: qemu-system-x86" "$WORK/while-up" || fail "no QEMU maps $FILE"
grep -q "^mapped: $((MIB << 10)) kB$" "$WORK/while-up" || fail "QEMU does not have all $MIB MiB of $FILE resident"
grep -q "^file blocks: $blocks$" "$WORK/while-up" || fail "$FILE lost pages while the guest ran"
grep -q "^proof: [1-9]" "$WORK/while-up" || fail "what the guest wrote to its RAM is not in $FILE"

# QEMU gone, the file keeps its pages; released, they are free again
[ "$(pool_state)" = "$(cat "$WORK/before")" ] || fail "the 2M pool changed when QEMU exited"
"$HPFILLD" --release "$NAME" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "hpfilld --release $NAME failed"; }
HOLDS_RESERVATION=no
[ ! -e "$FILE" ] || fail "$FILE is still there after --release"
[ "$(cat "$G/free_hugepages")" = $((free0 + PAGES)) ] || fail "free 2M pages after --release: $(cat "$G/free_hugepages"), expected $((free0 + PAGES))"
echo PASS
