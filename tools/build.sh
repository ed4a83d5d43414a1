#!/bin/sh
# SPDX-License-Identifier: MIT
# Configures (once) and builds hpfilld in DIR (default: build), with extra meson options.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
else
        meson setup "$dir" "$@" >/dev/null
fi
meson compile -C "$dir"
