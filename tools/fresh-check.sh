#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the README's two commands in a fresh Debian 12 (minbase) chroot made with mmdebstrap,
# on a fresh clone of HEAD: the check to make before resolving anything that touches the build.
# Then the unit suite once more where the host looks like a small machine without pools
# (../shared/tools/small-host.sh, when beside the checkout).
# Needs root and network access to the Debian mirror. Leaves the host's pools as it found them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}
dir=$(mktemp -d /tmp/hpfilld-fresh.XXXXXX)
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
saved=$(cat $hp)

cleanup() {
        for d in dev sys proc; do umount -R "$dir/root/$d" 2>/dev/null || true; done
        umount "$dir/root" 2>/dev/null || true
        echo "$saved" >$hp
        # not through a mount that is still there (/dev above all)
        rm -rf --one-file-system "$dir"
}
trap cleanup EXIT
# a signal ends the script through exit, so that the cleanup runs then too
trap 'exit 130' INT TERM HUP

[ -x "$(command -v mmdebstrap)" ] || { apt-get update -q && apt-get install -y -q mmdebstrap; }
mmdebstrap --variant=minbase bookworm "$dir/root" "$mirror" >"$dir/mmdebstrap.log" 2>&1 ||
        { cat "$dir/mmdebstrap.log"; exit 1; }
git clone -q "$top" "$dir/root/root/hpfilld"
cp /etc/resolv.conf "$dir/root/etc/resolv.conf"
# a machine's / is a mount point (the VM tests' `unshare --mount --propagation private` needs one)
mount --bind "$dir/root" "$dir/root"
mount --bind /proc "$dir/root/proc"
# /sys and /dev with what is mounted below them (/sys/fs/cgroup: the pids cgroup of
# tests/root/threads.sh; /dev/pts: the terminal of tests/root/progress.sh), as on a machine;
# slaves, so that the cleanup's unmounts stay in the chroot
for d in sys dev; do
        mount --rbind /$d "$dir/root/$d"
        mount --make-rslave "$dir/root/$d"
done

# the two commands, exactly as the README gives them
cmd1=$(sed -n '/^# 1\./{n;p;q}' "$top/README.md")
cmd2=$(sed -n '/^# 2\./{n;p;q}' "$top/README.md")
echo "=== $cmd1"
chroot "$dir/root" /bin/sh -c "cd /root/hpfilld && $cmd1"
# the README's way to give the pages back after it, as it gives it
giveback=$(sed -n 's/.*them back with `\([^`]*\)`.*/\1/p' "$top/README.md")
[ -n "$giveback" ] || { echo "fresh check: the README says no way to give the pages back"; exit 1; }
echo "=== $giveback"
chroot "$dir/root" /bin/sh -c "cd /root/hpfilld && $giveback"
[ "$(cat $hp)" = "$saved" ] || { echo "fresh check: after '$giveback' the 2M pool holds $(cat $hp) pages, not $saved"; exit 1; }
echo "=== $cmd2"
chroot "$dir/root" /bin/sh -c "cd /root/hpfilld && $cmd2"
# the unit suite where the host looks like a fresh 1 GiB machine without pools
# (../shared/tools/small-host.sh beside the checkout, as on the build machines): it must not
# depend on the host. In the script's namespace the chroot's /sys and /proc/meminfo are bound
# anew, so that they are the small host's.
small=$top/../shared/tools/small-host.sh
if [ -x "$small" ]; then
        echo "=== $small: meson test -C build --suite unit"
        "$small" sh -c 'umount -R "$1/sys" && mount --rbind /sys "$1/sys" && mount --bind /proc/meminfo "$1/proc/meminfo" &&
                chroot "$1" /bin/sh -c "cd /root/hpfilld && meson test -C build --suite unit"' small-host "$dir/root"
        echo "fresh check: the unit suite passed on a small host"
else
        echo "fresh check: no $small beside the checkout: the unit suite on a small host is not run"
fi
echo "fresh check: both README commands passed"
