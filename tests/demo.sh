#!/bin/bash
# SPDX-License-Identifier: MIT
# Demo: builds everything and shows uledsd driving LEDs on a real kernel, Debian's 6.12 under
# qemu, always: also where this machine has /dev/uleds (uleds-dkms installed). The tour needs
# gpio-sim, which Debian's kernels do not build, and a dbus-daemon and uledsd of its own (an
# installed uledsd owns io.uledsd1), and it must leave this machine as it was: nothing
# loaded, no policy file in /etc/dbus-1, no LED left.
# env: ULEDSD_DEMO_PLAN=1 prints the command the demo would run, and runs nothing (a test).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$src/build-ci}
plan=(bash "$src/tests/kernel/vm-run.sh" "$src/tests/kernel/demo-guest.sh")
if [ -n "${ULEDSD_DEMO_PLAN:-}" ]; then
	echo "${plan[*]}"
	exit 0
fi
bash "$src/tests/build.sh" "$build"
export ULEDSD_BUILD_ROOT=$build
echo "demo: booting Debian's 6.12 kernel in qemu: the tour brings its own gpio-sim, dbus-daemon and uledsd"
if [ -c /dev/uleds ]; then
	echo "demo: (this machine has /dev/uleds too; the VM keeps the tour away from its uledsd and LEDs)"
fi
exec "${plan[@]}"
