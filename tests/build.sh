#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs the dependencies and builds uledsd (GPIO backend and man pages required).
# usage: tests/build.sh BUILD_DIR
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$1
cd "$src"
bash tests/setup-deps.sh
# -Dgpio=enabled: a missing libgpiod fails the build instead of silently dropping the backend;
# -Dpanel=enabled likewise for GTK 4 and uledsd-panel.
opts=(-Dwerror=true -Dgpio=enabled -Dman-pages=enabled -Dpanel=enabled)
if [ -f "$build/build.ninja" ]; then
	meson configure "$build" "${opts[@]}"
else
	meson setup "$build" "${opts[@]}"
fi
ninja -C "$build"
