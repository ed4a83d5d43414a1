#!/bin/sh
# SPDX-License-Identifier: MIT
# The libvirt qemu hook (doc/recipes/libvirt/qemu-hook): a domain's XML turned into the
# arguments of `hpfilld claim` on "prepare begin", `hpfilld unclaim` on "release end", nothing
# on the other operations. HPFILLD is a recorder that writes its argv to a file (and exits
# $REC_RC with $REC_MSG on stderr): a test double for the translation only; the claim itself,
# with real libvirt and real pools, is tests/root/libvirt.sh. The machine is a fake tree
# (HPFILLD_HOOK_ROOT: /proc/meminfo's Hugepagesize, the nodes with memory), nothing of the
# host's. Each case runs under every POSIX shell found (dash, busybox sh, bash --posix). The
# claim names are checked against hpfilld's own rule for names (--reserve NAME:..., the rule
# claims share). Environment: SOURCE_ROOT, HPFILLD (the built binary, for the names).
set -eu
: "${SOURCE_ROOT:?}" "${HPFILLD:?}"
hook=$SOURCE_ROOT/doc/recipes/libvirt/qemu-hook
command -v xmllint >/dev/null || { echo "SKIP: no xmllint (package libxml2-utils; tools/setup.sh --test installs it)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/fake-tree.sh"

# the recorder: one line per call
cat >"$work/rec" <<'EOF'
#!/bin/sh
echo "$*" >>"$REC_LOG"
[ -z "${REC_MSG:-}" ] || echo "$REC_MSG" >&2
exit "${REC_RC:-0}"
EOF
chmod +x "$work/rec"
export REC_LOG="$work/log"

# machine KB NODES: the fake machine: default huge page size KB, NODES (like 0-1) with memory
machine() {
        rm -rf "$work/m"
        mkdir -p "$work/m/proc" "$work/m/sys/devices/system/node"
        printf 'MemTotal:       1048576 kB\nHugepagesize:       %s kB\n' "$1" >"$work/m/proc/meminfo"
        echo "$2" >"$work/m/sys/devices/system/node/has_memory"
}

shells="sh"
command -v busybox >/dev/null && busybox sh -c : 2>/dev/null && shells="$shells busybox"
command -v bash >/dev/null && shells="$shells bash"
run_hook() { # SHELL ARGS... (stdin: the XML)
        case $1 in
        sh) shift; sh "$hook" "$@" ;;
        busybox) shift; busybox sh "$hook" "$@" ;;
        bash) shift; bash --posix "$hook" "$@" ;;
        esac
}

# expect WHAT DOMAIN OP SUB WANT_RC WANT_CALLS [XML]: the hook run on XML (the file $work/x.xml
# unless given) under every shell exits WANT_RC and calls hpfilld with WANT_CALLS (lines, "" for
# no call); prints nothing on stdout; its stderr in $work/err
expect() {
        what=$1 dom=$2 op=$3 sub=$4 want_rc=$5 want=$6 xml=${7:-$work/x.xml}
        for s in $shells; do
                : >"$REC_LOG"
                rc=0
                HPFILLD="$work/rec" HPFILLD_HOOK_ROOT="$work/m" run_hook "$s" "$dom" "$op" "$sub" - <"$xml" >"$work/out" 2>"$work/err" || rc=$?
                [ "$rc" = "$want_rc" ] || bad "$what ($s): exited $rc, expected $want_rc: $(cat "$work/err")"
                [ "$(cat "$REC_LOG")" = "$want" ] || bad "$what ($s): hpfilld was called as
$(cat "$REC_LOG")
expected
$want"
                [ ! -s "$work/out" ] || bad "$what ($s): printed on stdout (libvirt takes some operations' output as XML): $(cat "$work/out")"
        done
        echo "ok   $what"
}

# dom NAME MEMORY BACKING [CPU_NUMA] [NUMATUNE]: a domain XML in $work/x.xml
dom() {
        cat >"$work/x.xml" <<EOF
<domain type='qemu'>
  <name>$1</name>
  <uuid>0f8e2b5c-3d41-4e8a-9a6b-2c7d1e9f0a13</uuid>
  $2
  <memoryBacking>$3</memoryBacking>
  <vcpu>2</vcpu>
  <cpu>${4:-}</cpu>
  ${5:-}
  <os><type arch='x86_64'>hvm</type></os>
</domain>
EOF
}

machine 2048 0-1

# no huge pages: nothing at all, on every operation
dom vm0 "<memory unit='MiB'>128</memory>" "<nosharepages/>"
for o in "prepare begin" "start begin" "started begin" "release end"; do
        # shellcheck disable=SC2086
        expect "no <hugepages>: $o" vm0 $o 0 ""
done

# <hugepages/>: the default size, the whole memory, hpfilld's spread
dom vm1 "<memory unit='MiB'>128</memory>" "<hugepages/>"
expect "2M default" vm1 prepare begin 0 "claim libvirt-vm1 --pool 2M:64"
expect "release" vm1 release end 0 "unclaim libvirt-vm1"
for o in "prepare end" "start begin" "started begin" "stopped end" "release begin" "migrate begin" "restore begin" "reconnect begin" "attach begin"; do
        # shellcheck disable=SC2086
        expect "no call on $o" vm1 $o 0 ""
done
# the default size is the machine's: 1 GiB pages where Hugepagesize says so
machine 1048576 0-1
dom vm1 "<memory unit='GiB'>3</memory>" "<hugepages/>"
expect "1G default (Hugepagesize)" vm1 prepare begin 0 "claim libvirt-vm1 --pool 1G:3"
machine 2048 0-1
# KiB by default, rounded up to whole pages
dom vm1 "<memory>131073</memory>" "<hugepages/>"
expect "KiB, rounded up" vm1 prepare begin 0 "claim libvirt-vm1 --pool 2M:65"
dom vm1 "<memory unit='MB'>100</memory>" "<hugepages/>"
expect "MB (10^6 bytes)" vm1 prepare begin 0 "claim libvirt-vm1 --pool 2M:48"
# a size of neither MiB nor GiB (arm64's 64 KiB contiguous pages) in kB, as hpfilld takes it
dom vm1 "<memory unit='MiB'>1</memory>" "<hugepages><page size='64'/></hugepages>"
expect "64 KiB pages" vm1 prepare begin 0 "claim libvirt-vm1 --pool 64kB:16"

# 1G pages, unit=G, on one host node
dom vm2 "<memory unit='G'>4</memory>" "<hugepages><page size='1' unit='G'/></hugepages>" "" \
        "<numatune><memory mode='strict' nodeset='1'/></numatune>"
expect "1G unit=G on node1" vm2 prepare begin 0 "claim libvirt-vm2 --pool 1G:node1=4"
dom vm2 "<memory unit='KiB'>2097152</memory>" "<hugepages><page size='1048576'/></hugepages>"
expect "1G in KiB, spread" vm2 prepare begin 0 "claim libvirt-vm2 --pool 1G:2"

# a node range: the pages spread over it, the lower node taking the odd one
dom vm3 "<memory unit='MiB'>102</memory>" "<hugepages><page size='2' unit='M'/></hugepages>" "" \
        "<numatune><memory nodeset='0-1'/></numatune>"
expect "nodeset 0-1" vm3 prepare begin 0 "claim libvirt-vm3 --pool 2M:node0=26,node1=25"
dom vm3 "<memory unit='MiB'>96</memory>" "<hugepages/>" "" "<numatune><memory nodeset='0-3,^1,^2'/></numatune>"
expect "nodeset 0-3,^1,^2" vm3 prepare begin 0 "claim libvirt-vm3 --pool 2M:node0=24,node3=24"

# per guest cell: each cell's memory on its memnode's host node
cells="<numa><cell id='0' cpus='0' memory='512' unit='MiB'/><cell id='1' cpus='1' memory='262144' unit='KiB'/></numa>"
dom vm4 "<memory unit='MiB'>768</memory>" "<hugepages/>" "$cells" \
        "<numatune><memory nodeset='0-1'/><memnode cellid='0' nodeset='1'/><memnode cellid='1' nodeset='0'/></numatune>"
expect "memnode per cell" vm4 prepare begin 0 "claim libvirt-vm4 --pool 2M:node0=128,node1=256"
# one cell pinned, the other on <memory nodeset=>
dom vm4 "<memory unit='MiB'>768</memory>" "<hugepages/>" "$cells" \
        "<numatune><memory nodeset='1'/><memnode cellid='0' nodeset='0'/></numatune>"
expect "memnode and memory nodeset" vm4 prepare begin 0 "claim libvirt-vm4 --pool 2M:node0=256,node1=128"
# one cell pinned, the other not: the unpinned one over the nodes with memory
dom vm4 "<memory unit='MiB'>768</memory>" "<hugepages/>" "$cells" "<numatune><memnode cellid='0' nodeset='1'/></numatune>"
expect "pinned and unpinned cells" vm4 prepare begin 0 "claim libvirt-vm4 --pool 2M:node0=64,node1=320"
# a page size per cell: 1G for cell 0, 2M (no nodeset) for the others
dom vm4 "<memory unit='MiB'>768</memory>" \
        "<hugepages><page size='1048576' unit='KiB' nodeset='0'/><page size='2048' unit='KiB'/></hugepages>" \
        "<numa><cell id='0' cpus='0' memory='1' unit='GiB'/><cell id='1' cpus='1' memory='256' unit='MiB'/></numa>" \
        "<numatune><memnode cellid='0' nodeset='0'/><memnode cellid='1' nodeset='1'/></numatune>"
expect "page size per cell" vm4 prepare begin 0 "claim libvirt-vm4 --pool 1G:node0=1 --pool 2M:node1=128"

# odd names: escaped byte for byte, each a name hpfilld takes; too long: libvirt_UUID, a form no
# escaped name takes (a domain named as that UUID is libvirt-UUID: no two domains share a claim)
dom x "<memory unit='MiB'>2</memory>" "<hugepages/>"
long=$(printf 'v%.0s' $(seq 1 56))
for pair in "web_1 libvirt-web_5f1" "a b libvirt-a_20b" "Db.prod-2 libvirt-Db.prod-2" "été libvirt-_c3_a9t_c3_a9" \
        "x'y\"z libvirt-x_27y_22z" "${long%v} libvirt-${long%v}" "$long libvirt_0f8e2b5c-3d41-4e8a-9a6b-2c7d1e9f0a13" \
        "0f8e2b5c-3d41-4e8a-9a6b-2c7d1e9f0a13 libvirt-0f8e2b5c-3d41-4e8a-9a6b-2c7d1e9f0a13"; do
        name=${pair% *} claim=${pair##* }
        expect "name '$name'" "$name" prepare begin 0 "claim $claim --pool 2M:1"
        expect "name '$name' released" "$name" release end 0 "unclaim $claim"
        # hpfilld's rule for names (check_reserve_name, which claims share)
        "$HPFILLD" --once --dry-run --root "$work/none" --reserve "$claim:2M:1" >/dev/null 2>"$work/name.err" || true
        ! grep -q "is not a reservation name" "$work/name.err" || bad "$claim is not a name hpfilld takes: $(cat "$work/name.err")"
done
# ... which does refuse an unescaped one
"$HPFILLD" --once --dry-run --root "$work/none" --reserve "libvirt-a b:2M:1" >/dev/null 2>"$work/name.err" || true
grep -q "is not a reservation name" "$work/name.err" || bad "hpfilld took 'libvirt-a b' as a name: the name check above proves nothing"

# the claim fails: hpfilld's message on stderr, exit 1, the claim taken back
dom vm5 "<memory unit='MiB'>64</memory>" "<hugepages/>"
export REC_RC=3 REC_MSG="hpfilld: the 2M pool is short: 10 of 32 pages on node0"
expect "claim short" vm5 prepare begin 1 "claim libvirt-vm5 --pool 2M:32
unclaim libvirt-vm5"
grep -q "^hpfilld: the 2M pool is short: 10 of 32 pages on node0$" "$work/err" || bad "hpfilld's message is not on stderr: $(cat "$work/err")"
grep -q "^hpfilld qemu hook: domain 'vm5' not started: 'hpfilld claim libvirt-vm5 --pool 2M:32' exited 3$" "$work/err" ||
        bad "no word of the claim's exit: $(cat "$work/err")"
echo "ok   the message: $(tr '\n' '|' <"$work/err")"
REC_RC=2 REC_MSG="hpfilld: node7: no such node"
expect "claim refused" vm5 prepare begin 1 "claim libvirt-vm5 --pool 2M:32
unclaim libvirt-vm5"
unset REC_RC REC_MSG

# bad XML values: refused before any claim, saying where
dom vm6 "<memory unit='MiB'>64</memory>" "<hugepages/>" "" "<numatune><memory nodeset='0-x'/></numatune>"
expect "bad nodeset" vm6 prepare begin 1 ""
grep -q "'0-x' is not a node set" "$work/err" || bad "bad nodeset: $(cat "$work/err")"
# a node past hpfilld's 65535 (a range that far would loop for minutes): not a node set
dom vm6 "<memory unit='MiB'>64</memory>" "<hugepages/>" "" "<numatune><memory nodeset='0-4294967295'/></numatune>"
expect "nodeset to 2^32" vm6 prepare begin 1 ""
grep -q "'0-4294967295' is not a node set" "$work/err" || bad "nodeset to 2^32: $(cat "$work/err")"
dom vm6 "<memory unit='MiB'>64</memory>" "<hugepages/>" "" "<numatune><memory nodeset='65536'/></numatune>"
expect "node 65536" vm6 prepare begin 1 ""
dom vm6 "<memory unit='furlongs'>64</memory>" "<hugepages/>"
expect "bad unit" vm6 prepare begin 1 ""
grep -q "unit 'furlongs'" "$work/err" || bad "bad unit: $(cat "$work/err")"
# 2^64 bytes (the shell's arithmetic wraps to 0 pages there) and more: refused, no claim
dom vm6 "<memory>18014398509481984</memory>" "<hugepages/>"
expect "2^64 bytes" vm6 prepare begin 1 ""
grep -q "<memory> '18014398509481984' KiB is more than this hook can count" "$work/err" || bad "2^64 bytes: $(cat "$work/err")"
dom vm6 "<memory unit='TiB'>99999999999999999999999</memory>" "<hugepages/>"
expect "23 digits of TiB" vm6 prepare begin 1 ""
dom vm6 "<memory unit='MiB'>64</memory>" "<hugepages/>" "<numa><cell id='x' cpus='0' memory='64' unit='MiB'/></numa>"
expect "bad cell id" vm6 prepare begin 1 ""
grep -q "guest cell 1 has the id 'x', not a number" "$work/err" || bad "bad cell id: $(cat "$work/err")"
printf '<domain><name>vm6</name><memory>65536</memory><memoryBacking><hugepages/></memoryBacking>\n' >"$work/broken.xml"
expect "not well-formed" vm6 prepare begin 1 "" "$work/broken.xml"
grep -q "domain 'vm6': its XML on standard input is not well-formed: -:2: parser error" "$work/err" || bad "not well-formed: $(cat "$work/err")"
machine 0 0
printf 'MemTotal: 1 kB\n' >"$work/m/proc/meminfo"
dom vm6 "<memory unit='MiB'>64</memory>" "<hugepages/>"
expect "no Hugepagesize" vm6 prepare begin 1 ""
grep -q "no Hugepagesize in $work/m/proc/meminfo" "$work/err" || bad "no Hugepagesize: $(cat "$work/err")"
machine 2048 0

# without xmllint: a domain without huge pages starts, one with them does not, saying why
mkdir "$work/bin"
for t in sh cat od tr awk sed sort grep busybox bash; do
        p=$(command -v "$t") && ln -s "$p" "$work/bin/$t"
done
dom vm7 "<memory unit='MiB'>64</memory>" "<nosharepages/>"
saved_path=$PATH
PATH=$work/bin
expect "no xmllint, no hugepages" vm7 prepare begin 0 ""
dom vm7 "<memory unit='MiB'>64</memory>" "<hugepages/>"
expect "no xmllint, hugepages" vm7 prepare begin 1 ""
PATH=$saved_path
grep -q "xmllint is not installed (package libxml2-utils)" "$work/err" || bad "no xmllint: $(cat "$work/err")"
PATH=$work/bin
# release without xmllint (installed when the domain started, removed since): the claim found
# by its name, or by the UUID where the name is too long for one
dom vm7 "<memory unit='MiB'>64</memory>" "<hugepages/>"
expect "no xmllint, release" vm7 release end 0 "unclaim libvirt-vm7"
dom "$long" "<memory unit='MiB'>64</memory>" "<hugepages/>"
expect "no xmllint, release by UUID" "$long" release end 0 "unclaim libvirt_0f8e2b5c-3d41-4e8a-9a6b-2c7d1e9f0a13"
PATH=$saved_path
passed
