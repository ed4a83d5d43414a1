#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian package as a distribution builds and installs it: a clean copy of the source tree
# (the files git tracks or would track, no build directories) is built with
# `dpkg-buildpackage -us -uc -b`, lintian finds no error in it, and apt installs it into a fresh
# Debian 12 root, or Debian 13 with HPFILLD_VM_SUITE=trixie (mmdebstrap, cached and shared with
# tests/vm/systemd.sh) in a chroot. Debian 12's package is built on the host (Debian 12); Debian
# 13's in a Debian 13 build root with debian/control's Build-Depends (tests/vm/rootfs.sh's
# rootfs_build_deb; the build is cached, shared with vm-systemd-trixie). Then:
# every variable of debian/control defined, the files are in place (the alert rules and the
# JSON schema as they are, not compressed), /etc/hpfilld.conf is a conffile with the source's content and fills
# nothing (`hpfilld --once --dry-run` has nothing to do), hpfilld.service is enabled (the
# sysinit.target.wants symlink) but nothing was started (no process, no /run/hpfilld), the
# initramfs-tools trigger put hpfilld into the initramfs, a changed conffile survives a
# reinstall, and a purge removes the conffile and the symlink.
#
# Needs root, dpkg-buildpackage and debhelper (dh), lintian, mmdebstrap and Debian's mirror (for
# the rootfs, once: it has the package's dependencies, apt installs offline). Skips (77) without them, fails where
# CI is set. Environment: SOURCE_ROOT (default: this script's tree), HPFILLD_VM_CACHE,
# HPFILLD_VM_MIRROR, HPFILLD_VM_KEEP=1 (as tests/vm/rootfs.sh says).
set -eu

# shellcheck source=tests/vm/rootfs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../vm/rootfs.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
for tool in dpkg-buildpackage dh lintian mmdebstrap dpkg-deb tar chroot unshare; do
        command -v "$tool" >/dev/null || cannot_run "no $tool (tools/setup.sh --test installs it)"
done
[ -r "$SOURCE_ROOT/debian/control" ] || fail "SOURCE_ROOT=$SOURCE_ROOT has no debian/"

vm_workdir pkg
ROOT=$WORK/root

### the build, as a distribution does it, from a clean copy of the tree

rootfs_build_deb "$WORK"
version=$DEB_VERSION
grep -E '^(Ok|Fail|Skipped): ' "$WORK/build.log" | sed 's/^/dh_auto_test: /'
# every substitution variable of debian/control defined (debian/rules), on every release: an
# empty ${hpfilld:Breaks} where none is needed, not a warning and a guess
if grep -E 'substitution variable \$\{hpfilld:[^}]*\} used, but is not defined' "$WORK/build.log"; then
        fail "dpkg-gencontrol warned of a variable of ours not defined (above)"
fi

# lintian: no error; the rest is shown (debian/hpfilld.lintian-overrides explains what it overrides)
lintian --display-info --pedantic --show-overrides "$CHANGES" >"$WORK/lintian.log" 2>&1 || true
sed 's/^/lintian: /' "$WORK/lintian.log"
if grep -q '^E: ' "$WORK/lintian.log"; then
        fail "lintian found errors (above)"
fi

# the README's Install section names what was built, and how
grep -qx 'dpkg-buildpackage -us -uc -b  *# .*' "$SOURCE_ROOT/README.md" &&
        grep -q "^apt-get install \.\./${DEB##*/} " "$SOURCE_ROOT/README.md" ||
        fail "the README's Install section does not show dpkg-buildpackage -us -uc -b and apt-get install ../${DEB##*/}"

dpkg-deb -c "$DRACUT_DEB" | grep -q ' \./usr/lib/dracut/modules\.d/90hpfilld/module-setup\.sh$' ||
        fail "hpfilld-dracut has no dracut module"

### a fresh Debian root ($SUITE: Debian 12 by default, 13 for pkg-install-trixie), hpfilld installed into it by apt

rootfs_tarball rootfs-deb "$ROOTFS_DEB_PKGS"
mkdir "$ROOT"
tar -x -C "$ROOT" -f "$ROOTFS_TAR"
echo "root: Debian $(cat "$ROOT/etc/debian_version") ($SUITE), $(chroot "$ROOT" systemctl --version | head -n 1)"
case $SUITE in
bookworm) want=12 ;;
trixie) want=13 ;;
*) want= ;;
esac
case $(cat "$ROOT/etc/debian_version") in
"$want".*) ;;
*) fail "the $SUITE root is Debian $(cat "$ROOT/etc/debian_version"), expected $want" ;;
esac
rootfs_kernel
chroot "$ROOT" lsinitramfs "/boot/initrd.img-$KVER" >"$WORK/initramfs-before.list"
if grep -qx usr/sbin/hpfilld "$WORK/initramfs-before.list"; then
        fail "the initramfs has hpfilld before the install"
fi
start=$(date +%s%N)
rootfs_install_deb
echo "apt-get install: $(secs "$start") s (offline: the root has the dependencies)"

checks=0
ok() { echo "ok: $*"; checks=$((checks + 1)); }

# the files
for f in usr/sbin/hpfilld lib/systemd/system/hpfilld.service etc/hpfilld.conf \
        usr/share/man/man8/hpfilld.8.gz usr/share/man/man5/hpfilld.conf.5.gz \
        usr/share/bash-completion/completions/hpfilld \
        usr/share/initramfs-tools/hooks/hpfilld usr/share/initramfs-tools/scripts/init-premount/hpfilld \
        usr/share/doc/hpfilld/README.md.gz usr/share/doc/hpfilld/changelog.gz usr/share/doc/hpfilld/copyright; do
        [ -f "$ROOT/$f" ] || fail "the package installed no /$f"
done
[ -x "$ROOT/usr/sbin/hpfilld" ] || fail "/usr/sbin/hpfilld is not executable"
for f in README.md kubelet/10-hpfilld.conf libvirt/domain.xml dpdk/dev-hugepages1G.mount qemu/memory.args; do
        [ -f "$ROOT/usr/share/doc/hpfilld/examples/$f" ] || [ -f "$ROOT/usr/share/doc/hpfilld/examples/$f.gz" ] ||
                fail "the package installed no /usr/share/doc/hpfilld/examples/$f (doc/recipes/)"
done
# the libvirt hook: an example to copy, executable as it is (dh_fixperms leaves examples/ alone)
hook=usr/share/doc/hpfilld/examples/libvirt/qemu-hook
[ -f "$ROOT/$hook" ] && [ -x "$ROOT/$hook" ] || fail "the package installed no executable /$hook"
cmp -s "$ROOT/$hook" "$SOURCE_ROOT/doc/recipes/libvirt/qemu-hook" || fail "/$hook is not doc/recipes/libvirt/qemu-hook"
# the alert rules and the JSON schema, as they are (not compressed: a file to load and to read)
for f in hpfilld-alerts.yml hpfilld-json.schema.json; do
        cmp -s "$ROOT/usr/share/doc/hpfilld/$f" "$SOURCE_ROOT/doc/$f" ||
                fail "/usr/share/doc/hpfilld/$f is not doc/$f: $(ls "$ROOT/usr/share/doc/hpfilld/")"
done
ok "the daemon, the unit, the conffile, both man pages, the completion, the initramfs hook, the docs, the recipes, the libvirt hook (executable), the alert rules and the JSON schema"
version_out=$(rootfs_chroot /usr/sbin/hpfilld --version) || fail "hpfilld --version failed in the root"
[[ $version_out == "hpfilld $version"* ]] || fail "hpfilld --version says '$version_out', expected $version"
ok "the installed binary runs: $(echo "$version_out" | head -n 1)"

# the unit's type is the one for the systemd the package was built against (debian/rules; the
# build root's pkg-config, rootfs_build_deb's BUILD_SYSTEMD), and a Type=notify-reload package
# Breaks the systemd that cannot load it. Debian 12 builds against 252, Debian 13 against 257.
case $SUITE in
bookworm) want_systemd=252 ;;
trixie) want_systemd=257 ;;
*) want_systemd=${BUILD_SYSTEMD%%.*} ;;
esac
[ "${BUILD_SYSTEMD%%.*}" = "$want_systemd" ] ||
        fail "the $SUITE package was built against systemd $BUILD_SYSTEMD, expected $want_systemd (not built as $SUITE builds it)"
want_type=notify want_breaks=""
if dpkg --compare-versions "$BUILD_SYSTEMD" ge 253; then want_type=notify-reload want_breaks="systemd (<< 253)"; fi
unit_type=$(sed -n 's/^Type=//p' "$ROOT/lib/systemd/system/hpfilld.service")
[ "$unit_type" = "$want_type" ] || fail "the installed unit is Type=$unit_type, expected $want_type (built against systemd $BUILD_SYSTEMD)"
[ "$(dpkg-deb -f "$DEB" Breaks)" = "$want_breaks" ] || fail "the package Breaks '$(dpkg-deb -f "$DEB" Breaks)', expected '$want_breaks'"
ok "the unit is Type=$unit_type for systemd $BUILD_SYSTEMD${want_breaks:+, Breaks: $want_breaks}"

# the conffile: dpkg's, as the source has it, and it fills nothing
conffiles=$(rootfs_chroot dpkg-query -W -f '${Conffiles}' hpfilld)
want_md5=$(md5sum <"$SOURCE_ROOT/conf/hpfilld.conf" | cut -d' ' -f1)
echo "$conffiles" | grep -qE "^ /etc/hpfilld\.conf $want_md5\$" ||
        fail "dpkg's conffiles are '$conffiles', expected /etc/hpfilld.conf $want_md5"
cmp "$SOURCE_ROOT/conf/hpfilld.conf" "$ROOT/etc/hpfilld.conf" || fail "/etc/hpfilld.conf is not conf/hpfilld.conf"
ok "/etc/hpfilld.conf is a conffile with conf/hpfilld.conf's content"
rc=0
out=$(rootfs_chroot /usr/sbin/hpfilld --once --dry-run 2>&1) || rc=$?
[ "$rc" = 0 ] && [[ $out == *"No pools configured in /etc/hpfilld.conf, "*", nothing to do"* ]] ||
        fail "hpfilld --once --dry-run with the shipped configuration: exit $rc, '$out' (expected nothing to do)"
ok "the shipped configuration fills nothing: $out"

# enabled as Debian enables daemons, and not started in the chroot
link=$ROOT/etc/systemd/system/sysinit.target.wants/hpfilld.service
[ -L "$link" ] || fail "hpfilld.service is not enabled: no /etc/systemd/system/sysinit.target.wants/hpfilld.service"
# /lib/systemd/system in Debian 12; in Debian 13 (merged /usr) systemctl names /usr/lib/systemd/system
case $(readlink "$link") in
/lib/systemd/system/hpfilld.service | /usr/lib/systemd/system/hpfilld.service)
        [ -f "$ROOT/$(readlink "$link")" ] || fail "the symlink points to '$(readlink "$link")', which is not in the root" ;;
*) fail "the symlink points to '$(readlink "$link")'" ;;
esac
ok "hpfilld.service enabled: sysinit.target.wants/hpfilld.service -> $(readlink "$link")"
for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] || continue
        fail "a process is running in the root after the install: $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)"
done
[ ! -e "$ROOT/run/hpfilld" ] || fail "the install left /run/hpfilld: hpfilld ran"
ok "nothing started: no process in the root, no /run/hpfilld"

# the trigger ran update-initramfs, and the hook put hpfilld into the image
grep -q 'update-initramfs' "$WORK/install.log" || { cat "$WORK/install.log"; fail "apt ran no update-initramfs trigger"; }
chroot "$ROOT" lsinitramfs "/boot/initrd.img-$KVER" >"$WORK/initramfs.list"
for f in usr/sbin/hpfilld scripts/init-premount/hpfilld etc/hpfilld.conf; do
        grep -qx "$f" "$WORK/initramfs.list" || fail "no $f in the initramfs after the install (the hook did not run?)"
done
ok "the initramfs-tools trigger put hpfilld and its script into initrd.img-$KVER"
# the hpfilld in the image is the static hpfilld-initramfs (debian/rules: -Dstatic-initramfs=true):
# no dynamic loader before the root file system; Built-Using names the C library it holds
static=usr/libexec/hpfilld/hpfilld-initramfs
[ -x "$ROOT/$static" ] || fail "the package installed no executable /$static"
mkdir "$WORK/initrd"
chroot "$ROOT" unmkinitramfs "/boot/initrd.img-$KVER" /tmp/initrd >"$WORK/unmkinitramfs.log" 2>&1 ||
        { cat "$WORK/unmkinitramfs.log"; fail "unmkinitramfs failed"; }
image_hpfilld=$(find "$ROOT/tmp/initrd" -path '*/usr/sbin/hpfilld' -type f | head -n 1)
[ -n "$image_hpfilld" ] || fail "no usr/sbin/hpfilld unpacked from the initramfs"
cmp -s "$image_hpfilld" "$ROOT/$static" || fail "the initramfs's hpfilld is not /$static"
if readelf -lW "$ROOT/$static" | grep -q 'INTERP'; then fail "/$static has a program interpreter (not static)"; fi
rm -rf "$ROOT/tmp/initrd"
rootfs_chroot "/$static" --version >/dev/null || fail "/$static --version failed in the root"
built_using=$(dpkg-deb -f "$DEB" Built-Using)
[[ $built_using == glibc\ \(=\ * ]] || fail "Built-Using is '$built_using', expected glibc (= VERSION)"
ok "the initramfs holds the static /$static; Built-Using: $built_using"

# a changed conffile survives a reinstall; a purge removes it and the symlink
echo "# a local change" >>"$ROOT/etc/hpfilld.conf"
rootfs_chroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall "/tmp/${DEB##*/}" \
        >"$WORK/reinstall.log" 2>&1 || { cat "$WORK/reinstall.log"; fail "apt-get install --reinstall failed"; }
grep -qx '# a local change' "$ROOT/etc/hpfilld.conf" || fail "the reinstall lost the local change to /etc/hpfilld.conf"
ok "a local change to /etc/hpfilld.conf survives a reinstall"
rootfs_chroot env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q hpfilld >"$WORK/purge.log" 2>&1 ||
        { cat "$WORK/purge.log"; fail "apt-get purge failed"; }
for f in etc/hpfilld.conf usr/sbin/hpfilld etc/systemd/system/sysinit.target.wants/hpfilld.service; do
        [ ! -e "$ROOT/$f" ] && [ ! -L "$ROOT/$f" ] || fail "/$f is still there after apt-get purge"
done
ok "apt-get purge removes the conffile, the binary and the symlink"
echo "PASS: $checks checks"
