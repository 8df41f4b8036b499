#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 31: tests/demo.sh runs the tour in the VM also where this machine could load uleds
# (uleds-dkms installed): on the host it would need gpio-sim, clash with an installed
# uledsd for io.uledsd1 and leave a policy file in /etc/dbus-1. A modprobe that succeeds
# stands for such a host.
# usage: test-demo-plan.sh SOURCE_ROOT
set -u
src=$1
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$fake/modprobe"
chmod +x "$fake/modprobe"
plan=$(PATH=$fake:$PATH ULEDSD_DEMO_PLAN=1 bash "$src/tests/demo.sh" 2>&1)
case $plan in
*"tests/kernel/vm-run.sh "*"demo-guest.sh") echo "ok - with a loadable uleds the demo still boots the VM" ;;
*) echo "not ok - the demo's plan on a host that can load uleds: $plan"; exit 1 ;;
esac
