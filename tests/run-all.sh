#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs every dependency (apt), builds uledsd and the kernel module, runs every test:
# unit tests on the host, kernel tests in a qemu VM on a real Debian kernel.
#
# usage: tests/run-all.sh [MESON TEST ARGS...]   e.g. --suite unit, or a test name
# env: BUILD_DIR (default build-ci under the source tree)
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$src/build-ci}
cd "$src"

bash tests/build.sh "$build"

# kmod/ must build warning-free against both Debian kernels' headers (6.1 and 6.12).
kmod_ok=0 kmod_fail=0
for kdir in /usr/src/linux-headers-6.1.*-amd64 /lib/modules/6.12.*/build; do
	[ -d "$kdir" ] || continue
	out=$build/kmod-check/$(basename "$(readlink -f "$kdir")")
	rm -rf "$out"
	mkdir -p "$build/kmod-check"
	if make -s -C kmod KDIR="$kdir" BUILD_DIR="$out" W=1 > "$out.log" 2>&1 &&
		! grep -E -i 'warning|error' "$out.log"; then
		echo "ok: kmod builds warning-free against $kdir"
		kmod_ok=$((kmod_ok + 1))
	else
		cat "$out.log"
		echo "FAIL: kmod against $kdir"
		kmod_fail=$((kmod_fail + 1))
	fi
done
[ $kmod_ok -ge 2 ] || { echo "FAIL: kmod was not built against both 6.1 and 6.12 headers"; kmod_fail=$((kmod_fail + 1)); }

# What meson installs to /usr/src/uleds-VERSION goes through dkms add/build/install/remove.
dkms_ok=0
for b in /lib/modules/6.1.*/build /lib/modules/6.12.*/build; do
	[ -d "$b" ] || continue
	if bash tests/kmod-dkms.sh "$build" "$(basename "$(dirname "$b")")"; then
		kmod_ok=$((kmod_ok + 1)) dkms_ok=$((dkms_ok + 1))
	else
		kmod_fail=$((kmod_fail + 1))
	fi
done
[ $dkms_ok -ge 2 ] || { echo "FAIL: DKMS was not exercised for both 6.1 and 6.12"; kmod_fail=$((kmod_fail + 1)); }

rc=0
ULEDSD_BUILD_ROOT=$build meson test -C "$build" --print-errorlogs --num-processes 2 "$@" || rc=$?

# One closing line that counts everything, kmod builds and DKMS included.
log=$build/meson-logs/testlog.json
passed=$(jq -s '[.[] | select(.result == "OK" or .result == "EXPECTEDFAIL")] | length' "$log")
failed=$(jq -s '[.[] | select(.result != "OK" and .result != "EXPECTEDFAIL" and .result != "SKIP")] | length' "$log")
skipped=$(jq -s '[.[] | select(.result == "SKIP")] | length' "$log")
if [ "$skipped" != 0 ]; then
	echo "FAIL: $skipped test(s) skipped; no test may skip"
	failed=$((failed + skipped))
fi
echo "$((passed + kmod_ok)) passed, $((failed + kmod_fail)) failed"
[ $rc = 0 ] && [ $kmod_fail = 0 ] && [ "$failed" = 0 ]
