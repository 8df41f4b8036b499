#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds ledsgpio-floor.ko for one kernel into OUTDIR (a cache, like tests/kernel/build-modules.sh).
# usage: build.sh KVER OUTDIR
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: build.sh KVER OUTDIR" >&2; exit 2; }
kver=$1 outdir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kbuild=/lib/modules/$kver/build
[ -d "$kbuild" ] || { echo "ledsgpio-floor: no kernel headers at $kbuild" >&2; exit 1; }
mkdir -p "$outdir"
ko=$outdir/ledsgpio-floor.ko
if [ -f "$ko" ] && [ -z "$(find "$here" -newer "$ko" -print -quit)" ]; then
	echo "ledsgpio-floor: up to date"
	exit 0
fi
src=$outdir/ledsgpio-floor-src
rm -rf "$src"
mkdir -p "$src"
cp "$here/Kbuild" "$here/ledsgpio-floor.c" "$src/"
make -C "$kbuild" -j"$(nproc)" M="$src" modules >"$src/build.log" 2>&1 ||
	{ cat "$src/build.log" >&2; echo "ledsgpio-floor: build failed" >&2; exit 1; }
cp "$src/ledsgpio-floor.ko" "$ko.tmp"
mv "$ko.tmp" "$ko"
echo "ledsgpio-floor: built $ko"
