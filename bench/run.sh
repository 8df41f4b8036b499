#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd's benchmark: builds everything, boots the test VM once, measures uledsd against a
# hand-written forwarder and the kernel's leds-gpio, prints the table (see bench/README.md).
#
# usage: bash bench/run.sh [--quick] [--no-build] [--before REV] [BUILD_DIR]
#   BUILD_DIR   meson build dir (default: the repo's build/); results go to BUILD_DIR/bench/
#   --quick     fewer samples: checks that everything runs (numbers not worth keeping;
#               bench/README.md is left alone)
#   --no-build  skip tests/build.sh (the build dir is already configured and built)
#   --no-readme leave bench/README.md alone (a run of a modified uledsd, for comparison)
#   --before REV  also build uledsd as of git revision REV and measure it in the same boots
#               ("uledsd-before"): what a change bought, without the noise between boots
#   --no-systemd  skip the second boot (systemd as PID 1: fd store, PID 1 wakeups)
# Writes BUILD_DIR/bench/results.json (every measurement, the ratios and targets) and
# results.md (the table), and copies the table into bench/README.md. Takes 20-30 minutes.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
quick=0 build_deps=1 readme=1 build= before_rev= systemd=1
while [ $# -gt 0 ]; do
	case $1 in
	--before) before_rev=$2; shift ;;
	--no-systemd) systemd=0 ;;
	--quick) quick=1 ;;
	--no-build) build_deps=0 ;;
	--no-readme) readme=0 ;;
	-h | --help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench/run.sh: unknown option $1" >&2; exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
build=${build:-$src/build}

if [ $build_deps = 1 ]; then
	# Installs the dependencies (apt, as root) and builds with the GPIO backend.
	bash "$src/tests/build.sh" "$build"
else
	ninja -C "$build"
fi
build=$(cd "$build" && pwd -P)
for f in daemon/uledsd bench/bench-measure bench/bench-baseline bench/bench-trivial; do
	[ -x "$build/$f" ] || { echo "bench/run.sh: $build/$f was not built (GPIO backend off?)" >&2; exit 1; }
done

# The kernel vm-run.sh boots (same choice), and the floor module built for it.
kver=${ULEDSD_KVER:-}
if [ -z "$kver" ]; then
	for b in $(ls -d /lib/modules/6.12.*/build 2>/dev/null | sort -V); do
		v=$(basename "$(dirname "$b")")
		[ -e "/boot/vmlinuz-$v" ] && kver=$v
	done
fi
[ -n "$kver" ] || { echo "bench/run.sh: no 6.12 kernel image with headers (run tests/setup-deps.sh)" >&2; exit 1; }
export ULEDSD_KVER=$kver
bash "$src/bench/ledsgpio-floor/build.sh" "$kver" "$build/kernel-cache/$kver"

# The syscall count and the profiles need strace and perf in the guest (the host's root).
command -v strace >/dev/null && command -v perf >/dev/null ||
	apt-get install -y --no-install-recommends strace linux-perf

mkdir -p "$build/bench"
rm -rf "$build/bench/before"
if [ -n "$before_rev" ]; then
	# A build of REV's uledsd inside the build dir, which the guest shares.
	rm -rf "$build/bench/before-src"
	mkdir -p "$build/bench/before-src" "$build/bench/before"
	git -C "$src" archive "$before_rev" | tar -x -C "$build/bench/before-src"
	meson setup "$build/bench/before-src/b" "$build/bench/before-src" -Dgpio=enabled \
		-Dpanel=disabled -Dman-pages=disabled >/dev/null
	ninja -C "$build/bench/before-src/b" daemon/uledsd >/dev/null
	cp "$build/bench/before-src/b/daemon/uledsd" "$build/bench/before/uledsd"
	echo "bench/run.sh: uledsd-before is $(git -C "$src" rev-parse --short "$before_rev")"
fi
rm -f "$build/bench/results.jsonl"
ULEDSD_BUILD_ROOT=$build ULEDSD_BENCH_QUICK=$quick \
	bash "$src/tests/kernel/vm-run.sh" --timeout 2400 "$src/bench/guest.sh"
if [ $systemd = 1 ]; then
	ULEDSD_BUILD_ROOT=$build ULEDSD_BENCH_QUICK=$quick \
		bash "$src/tests/kernel/vm-run.sh" --systemd --timeout 2400 "$src/bench/guest-systemd.sh"
fi

[ $quick = 0 ] && [ $readme = 1 ] && readme=$src/bench/README.md || readme=
python3 "$src/bench/report.py" "$build/bench/results.jsonl" "$build/bench/results.json" \
	"$build/bench/results.md" "$readme"
