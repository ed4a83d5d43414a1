#!/bin/bash
# SPDX-License-Identifier: MIT
# Memory hotplug in a VM (two NUMA nodes): the daemon fills node1's 2 MiB pool, an admin shrinks
# it, then the host hot-adds a DIMM to node1 over QMP; the kernel onlines it
# (memhp_default_state=online) and sends ACTION=online uevents, and the daemon fills the pool
# back to its target, then stops cleanly on SIGTERM.
#
# Host side: vm_run is reused as it is, with qemu-system-x86_64 wrapped (first in PATH) to give
# the VM hotplug room (-m ...,slots=,maxmem=) and a QMP socket. A watcher waits for the guest's
# marker on the console, then sends object-add and device_add.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || cannot_run "no python3 (for QMP)"
QMP_SOCK=$WORK/qmp.sock
MARKER="hpfilld-vm: ready for hotplug"

mkdir -p "$WORK/bin"
cat >"$WORK/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
# vm_run's command line, with memory hotplug slots and a QMP socket
args=()
while [ \$# -gt 0 ]; do
        if [ "\$1" = -m ]; then
                args+=(-m "\$2,slots=4,maxmem=6G")
                shift 2
                continue
        fi
        args+=("\$1")
        shift
done
exec $(command -v qemu-system-x86_64) "\${args[@]}" -qmp unix:$QMP_SOCK,server=on,wait=off
EOF
chmod 755 "$WORK/bin/qemu-system-x86_64"
export PATH=$WORK/bin:$PATH

vm_guest <<'EOF'
expect_topology 0-1 0-1
node1_kb() { sed -n 's/^Node 1 MemTotal: *\([0-9]*\) kB$/\1/p' $NODES/node1/meminfo; }
before_kb=$(node1_kb)

# hpfilld's stdout and stderr through a fifo, read line by line
mkfifo /tmp/log
$HPFILLD --pool 2M:node1=40 -v >/tmp/log 2>&1 &
pid=$!
exec 3</tmp/log

# wait_line ERE: shows hpfilld's lines until one matches (120 s without a line: a hang)
wait_line() {
        local line
        while :; do
                IFS= read -r -t 120 line <&3 || fail "hpfilld: no line matching '$1' (exited, or 120 s of silence)"
                echo "  | $line"
                if echo "$line" | grep -Eq -- "$1"; then
                        return 0
                fi
        done
}

wait_line "^hpfilld: 2M pool: 40/40 pages on 1 node in [0-9.]+ m?s \("
expect_counts 2048 0 40
# an admin shrinks the pool
echo 10 >"$(node_file 1 2048 nr_hugepages)"
expect_counts 2048 0 10
echo "hpfilld-vm: ready for hotplug"

wait_line "^hpfilld: Memory came online, filling again$"
wait_line "^hpfilld: 2M pool: 40/40 pages on 1 node in [0-9.]+ m?s \("
expect_counts 2048 0 40
after_kb=$(node1_kb)
echo "node1 MemTotal: $before_kb kB -> $after_kb kB"
[ "$after_kb" -gt "$before_kb" ] || fail "node1 did not grow: the hot-added memory is elsewhere"

rc=0
kill -TERM "$pid"
wait "$pid" || rc=$?
# the rest of its output, up to its exit
while IFS= read -r -t 10 line <&3; do echo "  | $line"; done
echo "hpfilld exited $rc after SIGTERM"
expect_eq "hpfilld's exit status after SIGTERM" "$rc" 0
expect_counts 2048 0 40
echo "hotplug: all checks passed"
EOF

# watch_and_plug: waits for the guest's marker, then hot-adds 256 MiB to node1 over QMP
watch_and_plug() {
        local i
        for ((i = 0; i < VM_TIMEOUT * 5; i++)); do
                # the test is gone (vm_run failed, the work directory removed): stop
                kill -0 $$ 2>/dev/null && [ -d "$WORK" ] || return 1
                grep -q "^$MARKER" "$VM_LOG" 2>/dev/null && break
                sleep 0.2
        done
        grep -q "^$MARKER" "$VM_LOG" 2>/dev/null || { echo "watcher: no marker from the guest" >&2; return 1; }
        echo "watcher: marker seen at $(date +%T.%N | cut -c1-12), hot-adding 256M to node1"
        python3 - "$QMP_SOCK" <<'PY' || { echo "watcher: QMP hotplug failed" >&2; return 1; }
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
def cmd(name, **args):
    f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "event" in r:
            continue
        if "error" in r:
            sys.exit(f"watcher: {name}: {r['error']}")
        print(f"watcher: {name}: {r}")
        return r
json.loads(f.readline())  # greeting
cmd("qmp_capabilities")
cmd("object-add", **{"qom-type": "memory-backend-ram", "id": "hp1", "size": 256 << 20})
cmd("device_add", driver="pc-dimm", id="dimm1", memdev="hp1", node=1)
PY
}
watch_and_plug &
watcher=$!

# shellcheck disable=SC2034 # read by vm_run
VM_APPEND="memhp_default_state=online"
vm_run 1536:0 512:1
wait "$watcher" || fail "the host-side hotplug failed (see watcher above)"
vm_expect_log "^topology: has_memory 0-1, has_cpu 0-1$"
vm_expect_log "^  \| hpfilld: Memory came online, filling again$"
vm_expect_log "^hotplug: all checks passed$"
echo PASS
