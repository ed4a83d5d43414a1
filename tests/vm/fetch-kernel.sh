#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes sure a Debian kernel image for the VM tests is in the cache and prints its path.
# The kernel is the one linux-image-cloud-amd64 depends on (the generic -amd64 flavour when the
# cloud one lacks NUMA or hugetlbfs), downloaded with apt-get and unpacked without installing it.
# A cached image is reused; with no apt lists or no network the newest cached image is used.
# Environment: HPFILLD_VM_CACHE (default /var/cache/hpfilld-vm), HPFILLD_VM_FLAVOURS (default
# "cloud-amd64 amd64", tried in order), HPFILLD_VM_SUITE (a Debian suite, such as trixie: its
# kernel, through apt lists of that suite kept in the cache, not the host's; its images cached
# apart; unset: the host's apt sources), HPFILLD_VM_MIRROR (that suite's mirror; default
# deb.debian.org). Exits 1, with a message, when no kernel can be had.
set -eu

cache=${HPFILLD_VM_CACHE:-/var/cache/hpfilld-vm}
flavours=${HPFILLD_VM_FLAVOURS:-cloud-amd64 amd64}
suite=${HPFILLD_VM_SUITE:-}
me=$(basename "$0")
# apt's options for the suite: a sources list, lists and archives of its own under the cache
apt_opts=""
if [ -n "$suite" ]; then
        case $suite in
        *[!a-z0-9-]*) echo "$me: HPFILLD_VM_SUITE='$suite' is not a Debian suite name" >&2; exit 1 ;;
        esac
        aptdir=$cache/apt-$suite
        cache=$cache/$suite
        apt_opts="-o Dir::Etc::SourceList=$aptdir/sources.list -o Dir::Etc::SourceParts=/dev/null
-o Dir::State::Lists=$aptdir/lists -o Dir::Cache=$aptdir/cache"
fi

say() { echo "$me: $*" >&2; }

# The kernel must have these for the tests to mean anything.
needed="CONFIG_NUMA CONFIG_ACPI_NUMA CONFIG_HUGETLBFS CONFIG_BLK_DEV_INITRD CONFIG_RD_GZIP CONFIG_DEVTMPFS
CONFIG_SERIAL_8250_CONSOLE CONFIG_COMPACTION CONFIG_CONTIG_ALLOC"

config_ok() { # config-file: all of $needed are =y
        for opt in $needed; do
                grep -q "^$opt=y\$" "$1" || { say "$(basename "$1"): $opt is not set"; return 1; }
        done
}

# resolve FLAVOUR: prints the versioned package the metapackage linux-image-FLAVOUR depends on
resolve() {
        # shellcheck disable=SC2086 # apt_opts: words
        apt-cache $apt_opts depends "linux-image-$1" 2>/dev/null |
                sed -n "s/^ *Depends: \(linux-image-[0-9][^ ]*-$1\)\$/\1/p" | head -n 1
}

mkdir -p "$cache" 2>/dev/null || true
# one fetch at a time (where the cache can be written to at all)
if [ -w "$cache" ]; then
        exec 9>"$cache/.lock"
        flock 9
fi
if [ -n "$suite" ] && [ -w "$cache" ]; then
        mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${HPFILLD_VM_MIRROR:-http://deb.debian.org/debian} $suite main" \
                >"$aptdir/sources.list"
fi

# An unpacked image of the package PKG is cached as vmlinuz-VERSION with config-VERSION beside it.
fetch() { # package
        pkg=$1 ver=${1#linux-image-}
        if [ -s "$cache/config-$ver" ]; then
                config_ok "$cache/config-$ver" || return 1
                if [ -s "$cache/vmlinuz-$ver" ]; then
                        echo "$cache/vmlinuz-$ver"
                        return 0
                fi
        fi
        tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
        trap 'rm -rf "$tmp"' EXIT
        rc=0
        unpack "$pkg" "$ver" || rc=$?
        rm -rf "$tmp"
        trap - EXIT
        [ "$rc" = 0 ] || return "$rc"
        # older images of this flavour are of no more use
        flavour=${ver#*-*-}
        for old in "$cache"/vmlinuz-*; do
                oldver=${old#"$cache"/vmlinuz-}
                if [ "$oldver" != "$ver" ] && [ "${oldver#*-*-}" = "$flavour" ]; then
                        rm -f "$old" "$cache/config-$oldver"
                fi
        done
        echo "$cache/vmlinuz-$ver"
}

# unpack PACKAGE VERSION: downloads PACKAGE into $tmp, moves its config and (if the config will
# do) its vmlinuz into the cache
unpack() {
        say "downloading $1"
        # shellcheck disable=SC2086 # apt_opts: words
        (cd "$tmp" && apt-get $apt_opts download -q -o APT::Sandbox::User=root "$1" >/dev/null) ||
                { say "apt-get download $1 failed"; return 1; }
        mkdir "$tmp/x"
        dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp/x" "./boot/vmlinuz-$2" "./boot/config-$2" ||
                { say "no boot/vmlinuz-$2 or boot/config-$2 in $1"; return 1; }
        # the config is kept either way: the next run knows without downloading again
        mv "$tmp/x/boot/config-$2" "$cache/config-$2"
        config_ok "$cache/config-$2" || return 1
        mv "$tmp/x/boot/vmlinuz-$2" "$cache/vmlinuz-$2"
}

updated=no
for flavour in $flavours; do
        pkg=$(resolve "$flavour")
        if [ -z "$pkg" ] && [ "$updated" = no ] && [ "$(id -u)" = 0 ]; then
                say "linux-image-$flavour unknown to apt-cache${suite:+ ($suite)}: apt-get update"
                # shellcheck disable=SC2086 # apt_opts: words
                apt-get $apt_opts update -q >/dev/null 2>&1 || say "apt-get update failed"
                updated=yes
                pkg=$(resolve "$flavour")
        fi
        if [ -n "$pkg" ]; then
                fetch "$pkg" && exit 0
        fi
        # no apt lists, no network or an unusable new version: the newest cached image of this
        # flavour, if it will do
        for img in $(printf '%s\n' "$cache"/vmlinuz-* | sort -rV); do
                [ -s "$img" ] || continue
                ver=${img#"$cache"/vmlinuz-}
                [ "${ver#*-*-}" = "$flavour" ] || continue
                if [ -s "$cache/config-$ver" ] && config_ok "$cache/config-$ver" >/dev/null 2>&1; then
                        say "linux-image-$flavour unresolved; using the cached $img"
                        echo "$img"
                        exit 0
                fi
        done
done
say "no usable kernel image (tried: $flavours; cache $cache)"
exit 1
