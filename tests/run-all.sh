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

# arm64 (tests/cross-arm64.sh): uledsd cross-built and unit-tested under qemu-user, kmod/ built
# against linux-source 6.12 prepared for Debian's arm64 kernel. In a full run only, in the
# background from here to the end (niced: the VMs' timeouts matter more than its wall time).
arm64=$build-arm64
arm64_pid=
if [ $# = 0 ]; then
	mkdir -p "$arm64"
	nice -n 10 bash tests/cross-arm64.sh "$arm64" >"$arm64/cross-arm64.log" 2>&1 &
	arm64_pid=$!
else
	echo "arm64: not run (meson test arguments given; tests/cross-arm64.sh BUILD runs it alone)"
fi

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

# The Debian packages: built once (BUILD/deb/release; BUILD/deb/upgrade, the same at
# VERSION+rebuild1; BUILD/deb/dkms, their module built by DKMS for the VM's kernel) and checked
# by lintian; the kernel test deb-install-upgrade-purge installs these files under systemd.
# The chroot install (mostly downloads) runs meanwhile, beside the kernel tests.
# In a full run only (no arguments), like the ASan build below.
deb_ok=0 deb_fail=0 chroot_pid=
if [ $# != 0 ]; then
	echo "deb: not run (meson test arguments given; tests/deb.sh BUILD runs it alone, and" \
		"the kernel test deb-install-upgrade-purge needs tests/deb.sh BUILD build upgrade dkms first)"
elif bash tests/deb.sh "$build" build upgrade dkms; then
	deb_ok=1
	bash tests/deb.sh "$build" chroot >"$build/deb/chroot-step.log" 2>&1 &
	chroot_pid=$!
else
	deb_fail=1
fi

# Every feature option off builds, warning-free (issue 29), in a full run only: a layer that
# reaches past its option (a bus call outside #if HAVE_DBUS, a gpio header without libgpiod)
# fails here.
off_ok=0 off_fail=0
if [ $# = 0 ]; then
	for opts in "-Ddbus=disabled -Dpanel=disabled" "-Dgpio=disabled" \
		"-Dman-pages=disabled -Dtests=false"; do
		off=$build-off-$(echo "$opts" | tr -c 'a-z\n' '-' | tr -s '-' | sed 's/^-//; s/-$//')
		# shellcheck disable=SC2086 # the options are words
		if { [ -f "$off/build.ninja" ] || meson setup "$off" -Dwerror=true $opts; } \
			>"$off.log" 2>&1 && ninja -C "$off" >>"$off.log" 2>&1; then
			echo "off-build $opts: OK"
			off_ok=$((off_ok + 1))
		else
			echo "off-build $opts: FAILED ($off.log):"
			tail -20 "$off.log"
			off_fail=$((off_fail + 1))
		fi
	done
fi

# A second build with ASan+UBSan (issue 20), in a full run only (no arguments): its unit suite
# now, and its kernel test (the daemon's tests in one boot, tests/kernel/test-checked.sh) in
# the background beside the main suite: a third VM costs less wall time than a fourth boot.
asan=$build-asan
asan_pid=
rc=0
if [ $# = 0 ]; then
	asan_opts=(-Dwerror=true -Dgpio=enabled -Dman-pages=disabled -Dpanel=disabled
		-Db_sanitize=address,undefined -Db_lundef=false)
	if [ -f "$asan/build.ninja" ]; then
		meson configure "$asan" "${asan_opts[@]}"
	else
		meson setup "$asan" "${asan_opts[@]}"
	fi
	ninja -C "$asan"
	ULEDSD_BUILD_ROOT=$asan meson test -C "$asan" --print-errorlogs --suite unit \
		--logbase unit || rc=$?
	# Its own module cache: the guest shares only ULEDSD_BUILD_ROOT, so a cache under the
	# other build dir is not there (insmod: No such file or directory).
	ULEDSD_BUILD_ROOT=$asan meson test -C "$asan" \
		--print-errorlogs --suite sanitize --logbase sanitize >"$asan/sanitize.log" 2>&1 &
	asan_pid=$!
fi

ULEDSD_BUILD_ROOT=$build meson test -C "$build" --print-errorlogs --num-processes 2 "$@" || rc=$?
if [ -n "$asan_pid" ]; then
	wait "$asan_pid" || rc=$?
	cat "$asan/sanitize.log"
fi

arm64_ok=0 arm64_fail=0
if [ -n "$arm64_pid" ]; then
	if wait "$arm64_pid"; then arm64_ok=1; else arm64_fail=1; fi
	cat "$arm64/cross-arm64.log"
fi

if [ -n "$chroot_pid" ]; then
	if wait "$chroot_pid"; then deb_ok=$((deb_ok + 1)); else deb_fail=$((deb_fail + 1)); fi
	cat "$build/deb/chroot-step.log"
fi

# One closing line that counts everything, kmod builds and DKMS included.
logs=("$build/meson-logs/testlog.json")
[ -n "$asan_pid" ] && logs+=("$asan/meson-logs/unit.json" "$asan/meson-logs/sanitize.json")
passed=$(cat "${logs[@]}" | jq -s '[.[] | select(.result == "OK" or .result == "EXPECTEDFAIL")] | length')
failed=$(cat "${logs[@]}" | jq -s '[.[] | select(.result != "OK" and .result != "EXPECTEDFAIL" and .result != "SKIP")] | length')
skipped=$(cat "${logs[@]}" | jq -s '[.[] | select(.result == "SKIP")] | length')
if [ "$skipped" != 0 ]; then
	echo "FAIL: $skipped test(s) skipped; no test may skip"
	failed=$((failed + skipped))
fi
echo "$((passed + kmod_ok + deb_ok + arm64_ok + off_ok)) passed, $((failed + kmod_fail + deb_fail + arm64_fail + off_fail)) failed"
[ $rc = 0 ] && [ $kmod_fail = 0 ] && [ $deb_fail = 0 ] && [ $arm64_fail = 0 ] && [ $off_fail = 0 ] && [ "$failed" = 0 ]
