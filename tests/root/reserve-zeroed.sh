#!/bin/bash
# SPDX-License-Identifier: MIT
# A reservation never hands a VM another VM's memory: on every path that hands a reservation out
# again once its last user has gone, the next guest reads zeros on every page. Each case: a guest
# writes over every byte of every page of the file and goes (tests/root/guest-pages.py: nothing
# has the file open or mapped after it), hpfilld hands the file out again, the next guest finds
# it prefaulted and zeroed. Paths: --once run again (same size, grown, shrunk); the daemon's
# start; a reload by SIGHUP and by `hpfilld reload`; a reload after Amount= grew and after it
# shrank; a restart; the refill on memory coming online (a synthetic uevent of a memory block).
#
# A file nobody has is always taken back (reserve.c, keep_in_use()): of the planned size, its
# pages are given back (a hole punched) and faulted anew, in place; of another size (or where the
# punch fails) it is unlinked and made anew. Only a file a process has open or maps, or of which
# that cannot be told, is kept as it is ("kept as it was ... (in use)"): here every report must say
# "at FILE" instead.
OWN_MOUNT_NS=1
. "$(dirname "$0")/lib.sh"

mount_huge
FILE=$MNT/hpfilld/guest
GUEST="$(dirname "$0")/guest-pages.py"
pool2m_set 0

# departed N: a guest wrote over all N pages of the reservation, unmapped it and exited
departed() {
        python3 "$GUEST" mark "$FILE" "$1" || fail "the departed guest could not write its $1 pages"
}
# zeroed N WHAT: WHAT's report ($LINE; the daemon's joins its parts with "; ") says the
# reservation was made at FILE, not kept, and the next guest reads zeros on every one of its N
# pages; where it does not, WHAT is added to $LEAKED and the test goes on (it fails at the end,
# naming every path that leaked)
LEAKED=""
zeroed() {
        local said=${LINE#*guest reservation: }
        case ${said%%; *} in
        "$1/$1 2M pages in "*" at $FILE") ;;
        *) fail "$2: the report says '$LINE', expected $1 pages made at $FILE" ;;
        esac
        if python3 "$GUEST" zeros "$FILE" "$1"; then
                echo "ok: $2: $1 pages zeroed"
        else
                echo "LEAK: $2: the reservation was handed out again with the last guest's memory"
                LEAKED="$LEAKED${LEAKED:+; }$2"
        fi
}
# once N: --once with a reservation of N pages; its report line in $LINE
once() {
        expect_rc 0 "$HPFILLD" --once --pool "2M:node$first=40" --reserve "guest:2M:$1@$first"
        LINE=$(grep '^guest reservation: ' "$WORK/out") || { cat "$WORK/out"; fail "--once: no reservation line"; }
}
# conf N: the daemon's configuration, a reservation of N pages
conf() {
        printf '[Pool]\nPageSize=2M\nAmount=node%s=40\n[Reserve]\nName=guest\nPageSize=2M\nAmount=%s\nNode=%s\n' \
                "$first" "$1" "$first" >"$WORK/r.conf"
}
# sighup: a reload by SIGHUP, up to its reservation line ($LINE): the fill's report (the
# configuration read again under the host lock, then filled), then "Configuration reloaded"
sighup() {
        local report
        kill -HUP "$DPID"
        daemon_read "guest reservation: "
        report=$LINE
        daemon_read "Configuration reloaded"
        LINE=$report
}
# reload_cmd: `hpfilld reload` (it returns once the fill is done), then its reservation line
reload_cmd() {
        expect_rc 0 "$HPFILLD" reload
        daemon_read "as asked on the control socket"
        daemon_read "guest reservation: "
}

### --once
once 4
zeroed 4 "--once, made"
departed 4
once 4
zeroed 4 "--once run again"
departed 4
once 6
zeroed 6 "--once, grown"
departed 6
once 3
zeroed 3 "--once, shrunk"

### the daemon: its start, reloads, Amount= changed, a restart
departed 3
conf 3
daemon_until "guest reservation: " --config "$WORK/r.conf"
zeroed 3 "daemon start"
departed 3
sighup
zeroed 3 "reload (SIGHUP)"
departed 3
reload_cmd
zeroed 3 "hpfilld reload"
departed 3
conf 5
sighup
zeroed 5 "reload, Amount= grown"
departed 5
conf 2
reload_cmd
zeroed 2 "reload, Amount= shrunk"
departed 2
daemon_stop
daemon_until "guest reservation: " --config "$WORK/r.conf"
zeroed 2 "daemon restart"

### memory coming online: the kernel's uevent of a memory block (its first in this daemon's life
### refills at once)
blocks=(/sys/devices/system/memory/memory*/uevent)
if [ -e "${blocks[0]}" ]; then
        departed 2
        echo online >"${blocks[0]}"
        daemon_read "Memory came online, filling again"
        daemon_read "guest reservation: "
        zeroed 2 "refill on memory coming online"
else
        echo "skip: the refill on memory coming online (no memory blocks in /sys/devices/system/memory)"
fi
daemon_stop
[ -z "$LEAKED" ] || fail "handed out again with the last guest's memory: $LEAKED"
echo PASS
