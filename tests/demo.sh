#!/bin/bash
# SPDX-License-Identifier: MIT
# Demo: builds everything and shows uledsd driving LEDs on a real kernel — directly when this
# machine has /dev/uleds (or can load the module), in a qemu VM otherwise.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$src/build-ci}
bash "$src/tests/build.sh" "$build"
export ULEDSD_BUILD_ROOT=$build
if [ -c /dev/uleds ] || modprobe uleds 2>/dev/null; then
	echo "demo: this kernel has /dev/uleds; running here"
	exec bash "$src/tests/kernel/demo-guest.sh"
fi
echo "demo: this kernel has no /dev/uleds (and cannot load uleds); booting a Debian 6.12 kernel in qemu"
exec bash "$src/tests/kernel/vm-run.sh" "$src/tests/kernel/demo-guest.sh"
