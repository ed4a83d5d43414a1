# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared by the VM tests that boot a whole Debian system with hpfilld installed (sourced by
# systemd.sh and dracut.sh; sources common.sh): a rootfs tarball made by mmdebstrap once and
# cached, hpfilld built with prefix /usr and installed into it by meson, chroot commands in it,
# and the boot of its kernel and initramfs under QEMU with the rootfs's disk. In order:
#   rootfs_setup [--mkfs-d]   skip or fail unless root, QEMU, mmdebstrap, mkfs.ext4 (with -d where
#                             asked) and the tools are there; WORK, ROOT ($WORK/root) and VM_EXIT
#   rootfs_tarball PREFIX PKG,...   ROOTFS_TAR: the cached tarball, $CACHE/PREFIX-SUITE-HASH.tar
#   rootfs_install MESON_OPTION...  hpfilld built and installed into $ROOT, the tarball unpacked
#   rootfs_build_deb DIR      hpfilld's Debian packages built by dpkg-buildpackage from a clean
#                             copy of $SOURCE_ROOT in DIR: DEB, DRACUT_DEB, DEB_VERSION, CHANGES
#   rootfs_install_deb        the tarball unpacked as $ROOT, $DEB installed there by apt
#   rootfs_expect FILE...     each /FILE is in $ROOT after the install
#   rootfs_chroot CMD...      CMD in $ROOT, with /proc, /sys and a small /dev
#   rootfs_kernel             KERNEL (vmlinuz-VERSION in $ROOT/boot, the newest) and KVER
#   rootfs_boot NAME LOG APPEND   boots $WORK/disk.img with $NODES; fails unless the guest passed
#
# Environment: SOURCE_ROOT (the source tree to build and install; default: this script's),
# VM_EXIT (the static vm-exit helper; built with ${CC:-cc} -static when unset), HPFILLD_VM_CACHE
# (default /var/cache/hpfilld-vm: the rootfs tarball, keyed by a hash of the mmdebstrap
# arguments), HPFILLD_VM_SUITE (default bookworm), HPFILLD_VM_MIRROR (default: the host's apt
# source for the suite),
# HPFILLD_VM_TIMEOUT (seconds per boot, default 300), HPFILLD_VM_KEEP=1 (keep the work
# directory), CI (set: what would be a skip is a failure).

# shellcheck source=tests/vm/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SOURCE_ROOT=${SOURCE_ROOT:-$(cd "$VM_DIR/../.." && pwd)}
VM_TIMEOUT=${HPFILLD_VM_TIMEOUT:-300}
CACHE=${HPFILLD_VM_CACHE:-/var/cache/hpfilld-vm}
# HPFILLD_VM_SUITE: the Debian suite of the rootfs (default bookworm; trixie: Debian 13, systemd 257)
SUITE=${HPFILLD_VM_SUITE:-bookworm}
# the packages of the rootfs that gets hpfilld's Debian package (systemd.sh, and
# tests/pkg/install.sh, which shares its cache): a systemd system with initramfs-tools, and the
# package's dependencies and recommendations, so that apt installs it offline
ROOTFS_DEB_PKGS=systemd-sysv,udev,kmod,initramfs-tools,linux-image-cloud-amd64,busybox,procps,libnuma1,libcap2,libhugetlbfs0,libsystemd0

# rootfs_setup [--mkfs-d]: the checks, the work directory and the vm-exit helper. --mkfs-d: the
# test makes its disk from the rootfs (mkfs.ext4 -d)
rootfs_setup() {
        local opt mkfs_d=no tool
        for opt; do
                case $opt in
                --mkfs-d) mkfs_d=yes ;;
                *) fail "rootfs_setup: unknown option '$opt'" ;;
                esac
        done
        [ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
        command -v qemu-system-x86_64 >/dev/null || cannot_run "no qemu-system-x86_64 (package qemu-system-x86)"
        command -v mmdebstrap >/dev/null || cannot_run "no mmdebstrap (package mmdebstrap)"
        command -v mkfs.ext4 >/dev/null || cannot_run "no mkfs.ext4 (package e2fsprogs)"
        if [ "$mkfs_d" = yes ]; then
                mkfs.ext4 2>&1 | grep -q -- '-d root-directory' || cannot_run "mkfs.ext4 has no -d (e2fsprogs 1.43 or later)"
        fi
        for tool in meson ninja tar timeout chroot unshare flock sha256sum; do
                command -v "$tool" >/dev/null || cannot_run "no $tool"
        done
        [ -r "$SOURCE_ROOT/meson.build" ] || fail "SOURCE_ROOT=$SOURCE_ROOT is no source tree"

        vm_workdir "$VM_NAME"
        ROOT=$WORK/root
        vm_static VM_EXIT "$VM_DIR/vm-exit.c" vm-exit
}

# rootfs_tarball PREFIX PKG,... [MMDEBSTRAP_ARG...]: ROOTFS_TAR, $SUITE with the packages PKG,...
# (mmdebstrap's --include; the further arguments after --variant=apt, which a --variant of them
# replaces), made once and cached as $CACHE/PREFIX-$SUITE-HASH.tar (HASH: of the mmdebstrap
# arguments); a new one removes the other PREFIX-$SUITE-*.tar. One build at a time ($CACHE/.PREFIX.lock).
rootfs_tarball() {
        local prefix=$1 pkgs=$2 mirror targets key tmp old start
        local -a mm_args
        shift 2
        # mirror: the host's apt source for $SUITE (main), or any Debian suite's, or deb.debian.org
        mirror=${HPFILLD_VM_MIRROR:-}
        if [ -z "$mirror" ]; then
                # shellcheck disable=SC2016 # apt-get's own $(FIELD) syntax
                targets=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' 2>/dev/null |
                        sort -u || true)
                mirror=$(echo "$targets" | awk -v s="$SUITE" '$2 == s && $3 == "main" { print $1; exit }')
                [ -n "$mirror" ] || mirror=$(echo "$targets" | awk '$2 !~ /-/ && $3 == "main" { print $1; exit }')
                [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
        fi
        mm_args=(--variant=apt "$@"
                --include="$pkgs"
                --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
                --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Languages "none"'
                "$SUITE")
        key=$(printf '%s\n' "${mm_args[@]}" | sha256sum | cut -c1-12)
        ROOTFS_TAR=$CACHE/$prefix-$SUITE-$key.tar
        mkdir -p "$CACHE"
        exec 9>"$CACHE/.$prefix.lock"
        flock 9
        if [ ! -s "$ROOTFS_TAR" ]; then
                echo "building the rootfs with mmdebstrap from $mirror (once; a few minutes)"
                start=$(date +%s%N)
                rm -f "$CACHE/.$prefix".*.tar # what a killed build left
                tmp=$(mktemp "$CACHE/.$prefix.XXXXXX.tar")
                if ! mmdebstrap -q "${mm_args[@]}" "$tmp" "$mirror" >"$WORK/mmdebstrap.log" 2>&1; then
                        tail -n 30 "$WORK/mmdebstrap.log"
                        rm -f "$tmp"
                        cannot_run "mmdebstrap failed (no network or mirror?) - see above"
                fi
                chmod 644 "$tmp"
                mv "$tmp" "$ROOTFS_TAR"
                for old in "$CACHE/$prefix-$SUITE"-*.tar; do
                        [ "$old" = "$ROOTFS_TAR" ] || rm -f "$old"
                done
                echo "rootfs: $(du -h "$ROOTFS_TAR" | cut -f1) in $(secs "$start") s"
        fi
        exec 9>&-
}

# rootfs_install MESON_OPTION...: hpfilld from $SOURCE_ROOT built with --prefix=/usr and the
# options (-Dinitramfs-tools= and -Ddracut=), $ROOTFS_TAR unpacked as $ROOT, hpfilld installed
# there by meson
rootfs_install() {
        if ! { meson setup "$WORK/build" "$SOURCE_ROOT" --prefix=/usr -Dtests=false "$@" -Dman-pages=disabled &&
                ninja -C "$WORK/build"; } >"$WORK/build.log" 2>&1; then
                tail -n 30 "$WORK/build.log"
                fail "building hpfilld with --prefix=/usr failed"
        fi
        mkdir "$ROOT"
        tar -x -C "$ROOT" -f "$ROOTFS_TAR"
        DESTDIR=$ROOT meson install -C "$WORK/build" --no-rebuild >"$WORK/install.log" 2>&1 ||
                { cat "$WORK/install.log"; fail "meson install failed"; }
}

# rootfs_build_deb DIR: DIR/hpfilld, a clean copy of $SOURCE_ROOT (what git tracks or would
# track; no build directories, no ignored files), built with `dpkg-buildpackage -us -uc -b`
# (log: DIR/build.log): DEB and DRACUT_DEB (the packages, in DIR), DEB_VERSION, CHANGES, and
# BUILD_SYSTEMD, the version of the systemd it was built against (pkg-config's, as debian/rules
# asks it). $SUITE is the host's: built on the host. Another suite: built as that release builds
# it, in a root of its own (rootfs_build_root) that debian/rules runs in, and cached as
# $CACHE/deb-$SUITE-HASH/ (HASH: of the clean copy and the build root), so that the tests of the
# suite share one build; a new one removes the other deb-$SUITE-*.
rootfs_build_deb() {
        local dir=$1 src=$1/hpfilld arch start host_suite key built f
        command -v dpkg-buildpackage >/dev/null || cannot_run "no dpkg-buildpackage (package dpkg-dev)"
        command -v dh >/dev/null || cannot_run "no dh (package debhelper)"
        mkdir "$src"
        if git -C "$SOURCE_ROOT" rev-parse --show-toplevel >/dev/null 2>&1; then
                (cd "$SOURCE_ROOT" && git ls-files -z --cached --others --exclude-standard) |
                        (cd "$SOURCE_ROOT" && tar --null --ignore-failed-read -T - -cf -) | tar -x -C "$src"
        else
                tar -C "$SOURCE_ROOT" --exclude='./build*' --exclude='./obj-*' --exclude=./.vm -cf - . | tar -x -C "$src"
        fi
        [ ! -e "$src/build" ] || fail "the clean copy has a build directory"
        DEB_VERSION=$(cd "$src" && dpkg-parsechangelog -S Version)
        arch=$(dpkg --print-architecture)
        DEB=$dir/hpfilld_${DEB_VERSION}_$arch.deb
        DRACUT_DEB=$dir/hpfilld-dracut_${DEB_VERSION}_all.deb
        CHANGES=$dir/hpfilld_${DEB_VERSION}_$arch.changes
        host_suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
        if [ "$SUITE" = "$host_suite" ]; then
                start=$(date +%s%N)
                # CI=, which turns a missing tool into a failure, is this project's CI's, not the
                # distribution's build: its dh_auto_test has the Build-Depends alone
                if ! (cd "$src" && env -u CI dpkg-buildpackage -us -uc -b) >"$dir/build.log" 2>&1; then
                        tail -n 40 "$dir/build.log"
                        fail "dpkg-buildpackage -us -uc -b failed"
                fi
                echo "dpkg-buildpackage: built on the host (Debian $(cat /etc/debian_version)) in $(secs "$start") s"
                BUILD_SYSTEMD=$(pkg-config --modversion systemd) || fail "pkg-config knows no systemd on the host"
        else
                rootfs_build_root
                key=$( (tar -C "$src" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . &&
                        echo "${BUILD_ROOT_TAR##*/}") | sha256sum | cut -c1-12)
                built=$CACHE/deb-$SUITE-$key
                exec 8>"$CACHE/.deb-$SUITE.lock"
                flock 8
                if [ ! -s "$built/systemd-version" ]; then
                        rootfs_build_in_root "$dir" "$built"
                else
                        echo "dpkg-buildpackage: the $SUITE build of this tree from the cache, $built"
                fi
                for f in "$built"/*; do
                        cp "$f" "$dir/"
                done
                exec 8>&-
                BUILD_SYSTEMD=$(cat "$dir/systemd-version")
        fi
        [ -f "$DEB" ] && [ -f "$DRACUT_DEB" ] || { ls "$dir"; fail "no $DEB or $DRACUT_DEB"; }
}

# the build root's packages beyond debian/control's Build-Depends: pkg-config for BUILD_SYSTEMD
BUILD_ROOT_PKGS=build-essential,dpkg-dev,pkgconf

# rootfs_build_root: BUILD_ROOT_TAR, a $SUITE root to build the package in (rootfs_tarball,
# build-root-$SUITE-HASH.tar): mmdebstrap's buildd variant, and the Build-Depends of
# $SOURCE_ROOT/debian/control installed there by apt from $SUITE's mirror (apt-get satisfy)
rootfs_build_root() {
        local deps ROOTFS_TAR
        deps=$(awk '/^Build-Depends:/ { f = 1; sub(/^Build-Depends:/, ""); print; next }
                f && /^[ \t]/ { print; next } { f = 0 }' "$SOURCE_ROOT/debian/control" |
                tr '\n\t' '  ' | sed 's/  */ /g; s/^ //; s/ *,* *$//')
        [ -n "$deps" ] || fail "debian/control has no Build-Depends"
        rootfs_tarball build-root "$BUILD_ROOT_PKGS" --variant=buildd \
                --customize-hook="chroot \"\$1\" apt-get satisfy -y -q --no-install-recommends '$deps'"
        BUILD_ROOT_TAR=$ROOTFS_TAR
}

# rootfs_build_in_root DIR CACHED: the clean copy DIR/hpfilld built by dpkg-buildpackage in
# $BUILD_ROOT_TAR unpacked as DIR/build-root; the packages, the build's log and systemd-version
# (pkg-config's in the build root) are CACHED/'s
rootfs_build_in_root() {
        local dir=$1 cached=$2 broot=$1/build-root tmp start old
        mkdir "$broot"
        tar -x -C "$broot" -f "$BUILD_ROOT_TAR"
        mkdir "$broot/build"
        cp -a "$dir/hpfilld" "$broot/build/"
        echo "dpkg-buildpackage: building in a Debian $(cat "$broot/etc/debian_version") ($SUITE) root (once for this tree)"
        start=$(date +%s%N)
        # shellcheck disable=SC2016 # expanded in the build root
        # (without CI=, as on the host)
        if ! ROOT=$broot rootfs_chroot env -u CI /bin/sh -ec 'cd /build/hpfilld && dpkg-buildpackage -us -uc -b' \
                >"$dir/build.log" 2>&1; then
                tail -n 40 "$dir/build.log"
                fail "dpkg-buildpackage -us -uc -b failed in the $SUITE build root"
        fi
        echo "dpkg-buildpackage: built in the $SUITE root in $(secs "$start") s"
        ROOT=$broot rootfs_chroot pkg-config --modversion systemd >"$dir/systemd-version" ||
                fail "pkg-config knows no systemd in the $SUITE build root"
        tmp=$(mktemp -d "$CACHE/.deb-$SUITE.XXXXXX")
        cp "$broot"/build/*.deb "$broot"/build/*.changes "$broot"/build/*.buildinfo "$dir/build.log" \
                "$dir/systemd-version" "$tmp/"
        chmod 755 "$tmp"
        rm -rf "$cached" "$broot"
        mv "$tmp" "$cached"
        for old in "$CACHE/deb-$SUITE"-* "$CACHE/.deb-$SUITE".*; do
                [ "$old" = "$cached" ] || [ ! -d "$old" ] || rm -rf "$old"
        done
}

# rootfs_install_deb: $ROOTFS_TAR unpacked as $ROOT (unless there already), and $DEB installed
# there by apt, offline (the rootfs has its dependencies), documentation and man pages kept as on
# a real system; apt's output in $WORK/install.log
rootfs_install_deb() {
        if [ ! -d "$ROOT" ]; then
                mkdir "$ROOT"
                tar -x -C "$ROOT" -f "$ROOTFS_TAR"
        fi
        rm -f "$ROOT/etc/dpkg/dpkg.cfg.d/99mmdebstrap"
        cp "$DEB" "$ROOT/tmp/"
        if ! rootfs_chroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/${DEB##*/}" \
                >"$WORK/install.log" 2>&1; then
                cat "$WORK/install.log"
                fail "apt-get install of the package failed"
        fi
}

# rootfs_expect FILE...: fails (showing meson install's output) unless each /FILE is in $ROOT
rootfs_expect() {
        local f
        for f in "$@"; do
                [ -e "$ROOT/$f" ] || { cat "$WORK/install.log"; fail "the install put no /$f in the rootfs"; }
        done
}

# rootfs_chroot CMD...: runs CMD chrooted in $ROOT. The chroot's /proc, /sys and /dev (a tmpfs
# with a few nodes and a /dev/shm, as a build daemon's; not the host's) are mounted in a mount
# namespace of its own: they go away with it, however the test ends.
rootfs_chroot() {
        # shellcheck disable=SC2016 # expanded by that shell
        unshare --mount --propagation private /bin/sh -ec '
                mount -t proc proc "$1/proc"
                mount -t sysfs sysfs "$1/sys"
                mount -t tmpfs -o mode=755 tmpfs "$1/dev"
                for node in null:3 zero:5 full:7 random:8 urandom:9; do
                        mknod -m 666 "$1/dev/${node%:*}" c 1 "${node#*:}"
                done
                mkdir "$1/dev/shm"
                mount -t tmpfs -o mode=1777 tmpfs "$1/dev/shm"
                root=$1
                shift
                chroot "$root" "$@"
        ' sh "$ROOT" "$@"
}

# rootfs_kernel: KERNEL, the newest vmlinuz-* in $ROOT/boot, and KVER, its version
rootfs_kernel() {
        KERNEL=$(cd "$ROOT/boot" && printf '%s\n' vmlinuz-* | sort -V | tail -n 1)
        [ -f "$ROOT/boot/$KERNEL" ] || fail "no kernel in the rootfs's /boot"
        KVER=${KERNEL#vmlinuz-}
}

# rootfs_boot NAME LOG APPEND: boots $KERNEL with $ROOT/boot/initrd.img-$KVER, the kernel command
# line APPEND and $WORK/disk.img as virtio disk (/dev/vda), on the NUMA nodes $NODES (vm_numa's
# "MiB[:CPUS]"); fails unless the guest's checks passed. The console goes to LOG; the checker's
# lines (and FAIL lines) are shown, or the console's tail when it failed. NAME (may be empty)
# prefixes the messages.
rootfs_boot() {
        local name=${1:+$1: } log=$2 append=$3 start
        vm_numa "${NODES[@]}"
        echo "booting $name$KERNEL, nodes ${NODES[*]}, timeout ${VM_TIMEOUT}s, append: $append"
        start=$(date +%s%N)
        vm_qemu "$log" -nic none \
                -kernel "$ROOT/boot/$KERNEL" -initrd "$ROOT/boot/initrd.img-$KVER" \
                -append "$append" \
                -drive "file=$WORK/disk.img,if=virtio,format=raw"
        if [ "$VM_STATUS" = 1 ] && [ "$VM_RESULT" = 0 ]; then
                grep -E '^(hpfilld-vm|FAIL):' "$log"
                echo "--- ${name}passed, QEMU exited after $(secs "$start") s"
                return 0
        fi
        echo "--- guest console (last 150 lines)"
        tail -n 150 "$log"
        echo "--- ${name}QEMU exited $VM_STATUS after $(secs "$start") s"
        if [ "$VM_STATUS" = 124 ]; then
                fail "${name}no result within ${VM_TIMEOUT}s (QEMU killed; the boot hung?)"
        elif vm_failed_in_guest; then
                fail "$name$VM_RESULT check(s) failed in the guest (see FAIL above)"
        elif [ "$VM_STATUS" = 0 ]; then
                fail "${name}harness error: QEMU exited 0 (kernel panic, or the guest powered off without vm-exit)"
        else
                fail "${name}harness error: QEMU exited $VM_STATUS, guest result '${VM_RESULT:-none}'"
        fi
}
