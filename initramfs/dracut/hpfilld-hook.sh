#!/bin/sh
# SPDX-License-Identifier: MIT
# dracut pre-mount hook: fills the huge page pools before the root file system is mounted, when
# the kernel command line asks for it (hpfilld.pool=...) or a configuration file came along: the
# pools only (reservations wait for the service on the real root).
# no grep: initramfs-tools images without busybox have only klibc's tools
read -r cmdline </proc/cmdline
case " $cmdline " in
*" hpfilld.pool="*) run=yes ;;
*) run=no ;;
esac
[ -f /etc/hpfilld.conf ] || [ -d /etc/hpfilld.conf.d ] || [ -d /usr/lib/hpfilld.conf.d ] && run=yes
if [ "$run" = yes ]; then
        /usr/sbin/hpfilld --once --pools-only --log-target=kmsg || warn "hpfilld: exit status $?, the boot goes on"
fi
