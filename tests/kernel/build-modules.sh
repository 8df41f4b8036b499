#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds uleds.ko (from kmod/), gpio-sim.ko and uleds-mainline.ko (out of tree, from
# linux-source), the test PWM chip pwm-test.ko (tests/kernel/pwm-test.c) and ledtrig-many.ko
# (tests/kernel/ledtrig-many.c) for one kernel.
#
# usage: build-modules.sh KVER OUTDIR SRCROOT
#   KVER     kernel release; /lib/modules/KVER/build must exist
#   OUTDIR   where the modules end up (a cache: nothing is rebuilt when the outputs are
#            newer than their inputs)
#   SRCROOT  the uledsd source tree; the module comes from SRCROOT/kmod
# env: ULEDS_KMOD_SRC  build uleds.ko from this directory instead of SRCROOT/kmod
#      LINUX_SOURCE_TARBALL  default /usr/src/linux-source-MAJOR.MINOR.tar.xz
#      ULEDS_KBUILD  the kernel build tree (default /lib/modules/KVER/build)
#      ULEDS_KMAKE_ARGS  more make arguments, e.g. "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
#                    (tests/cross-arm64.sh builds the modules for its arm64 boot so)
set -euo pipefail

die() { echo "build-modules: $*" >&2; exit 1; }

[ $# -eq 3 ] || die "usage: build-modules.sh KVER OUTDIR SRCROOT"
kver=$1 outdir=$2 srcroot=$3
kbuild=${ULEDS_KBUILD:-/lib/modules/$kver/build}
[ -d "$kbuild" ] || die "no kernel headers at $kbuild (install linux-headers-$kver)"

kmod_src=${ULEDS_KMOD_SRC:-$srcroot/kmod}
[ -f "$kmod_src/uleds.c" ] ||
	die "$kmod_src/uleds.c does not exist: the uleds kernel module (issue 'kernel module') is not written yet, so no kernel test can run (set ULEDS_KMOD_SRC=DIR to build another copy)"
[ -f "$kmod_src/Kbuild" ] || die "$kmod_src/Kbuild does not exist (it must say obj-m += uleds.o)"

tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-$(echo "$kver" | cut -d. -f1,2).tar.xz}
[ -f "$tarball" ] || die "no $tarball (install linux-source-$(echo "$kver" | cut -d. -f1,2) matching linux-headers-$kver)"

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
self=$(readlink -f "$0")

# Parallel meson tests all call this: one builder at a time, the others then see the cache.
exec 9>"$outdir/.build.lock"
flock 9

# up_to_date OUTPUT INPUT...: OUTPUT exists and no INPUT is newer.
up_to_date() {
	local out=$1
	shift
	[ -f "$out" ] || return 1
	[ -z "$(find "$@" -newer "$out" -print -quit)" ]
}

read -r -a kmake_args <<<"${ULEDS_KMAKE_ARGS:-}"
mkflags=(-C "$kbuild" -j"$(nproc)" "${kmake_args[@]}")

# fresh_src NAME: an empty $outdir/NAME-src, in $src.
fresh_src() {
	src=$outdir/$1-src
	rm -rf "$src"
	mkdir -p "$src"
}

# make_module NAME: builds $src (its Kbuild makes NAME.ko) and installs NAME.ko in $outdir
# atomically (a parallel reader sees the old module or the new one).
make_module() {
	make "${mkflags[@]}" M="$src" modules >"$src/build.log" 2>&1 ||
		{ cat "$src/build.log" >&2; die "building $1.ko failed (log above, also in $src/build.log)"; }
	[ -f "$src/$1.ko" ] || die "the build in $src made no $1.ko (is the module named $1 in its Kbuild?)"
	cp "$src/$1.ko" "$outdir/$1.ko.tmp"
	mv "$outdir/$1.ko.tmp" "$outdir/$1.ko"
}

# one_file_module NAME: NAME.ko from the single source tests/kernel/NAME.c.
one_file_module() {
	local c=$srcroot/tests/kernel/$1.c
	if up_to_date "$outdir/$1.ko" "$c" "$self"; then
		echo "build-modules: $1.ko is up to date"
		return
	fi
	echo "build-modules: building $1.ko for $kver"
	fresh_src "$1"
	cp "$c" "$src/"
	echo "obj-m += $1.o" >"$src/Kbuild"
	make_module "$1"
}

# --- uleds.ko -------------------------------------------------------------------------
mapfile -t kmod_inputs < <(find "$kmod_src" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name Kbuild \) ! -name '*.mod.c' | sort)
# The stamp names the source directory and its files: switching ULEDS_KMOD_SRC, or a file
# added to or removed from kmod/, rebuilds even when no timestamp says so.
stamp="$kmod_src $(printf '%s\n' "${kmod_inputs[@]##*/}" | sort | tr '\n' ' ')"
if [ "$(cat "$outdir/uleds.stamp" 2>/dev/null)" = "$stamp" ] &&
	up_to_date "$outdir/uleds.ko" "${kmod_inputs[@]}" "$self"; then
	echo "build-modules: uleds.ko is up to date"
else
	echo "build-modules: building uleds.ko from $kmod_src for $kver"
	fresh_src uleds
	cp "${kmod_inputs[@]}" "$src/"
	make_module uleds
	echo "$stamp" >"$outdir/uleds.stamp"
fi

# --- gpio-sim.ko ----------------------------------------------------------------------
# Debian builds neither GPIO_SIM nor IRQ_SIM; both sources link into one module here.
# irq_to_desc() is not exported to modules, generic_handle_irq() does the same dispatch.
if up_to_date "$outdir/gpio-sim.ko" "$tarball" "$self"; then
	echo "build-modules: gpio-sim.ko is up to date"
else
	echo "build-modules: building gpio-sim.ko from $tarball for $kver"
	fresh_src gpio-sim
	tar -xJf "$tarball" -C "$src" --strip-components=3 --wildcards \
		'linux-source-*/drivers/gpio/gpio-sim.c' 'linux-source-*/kernel/irq/irq_sim.c' ||
		die "cannot extract gpio-sim.c and irq_sim.c from $tarball"
	# 6.1's gpio-sim.c includes the private drivers/gpio/gpiolib.h (6.12's does not).
	if grep -q '#include "gpiolib.h"' "$src/gpio-sim.c"; then
		tar -xJf "$tarball" -C "$src" --strip-components=3 --wildcards \
			'linux-source-*/drivers/gpio/gpiolib.h' ||
			die "cannot extract gpiolib.h from $tarball"
	fi
	sed -i 's/handle_simple_irq(irq_to_desc(\([^)]*\)))/generic_handle_irq(\1)/' "$src/irq_sim.c"
	grep -q 'generic_handle_irq(' "$src/irq_sim.c" ||
		die "patching irq_sim.c failed: handle_simple_irq(irq_to_desc(...)) not found in this kernel version"
	cat >"$src/Kbuild" <<'EOF'
obj-m += gpio-sim.o
gpio-sim-y := gpio-sim-drv.o irq_sim.o
EOF
	# A module cannot be made of an object with its own name: rename the driver object.
	mv "$src/gpio-sim.c" "$src/gpio-sim-drv.c"
	make_module gpio-sim
fi

# --- pwm-test.ko ----------------------------------------------------------------------
# A PWM chip without hardware for the pwm backend's tests (tests/kernel/pwm-test.c), for 6.1
# (its struct pwm_chip embedded) and 6.9+ (devm_pwmchip_alloc) alike.
one_file_module pwm-test

# --- uleds-mainline.ko ----------------------------------------------------------------
# The in-tree drivers/leds/uleds.c as it is (Debian builds no CONFIG_LEDS_USER), for the tests
# of uledsd with the mainline driver (test-rename-race.sh). Module uleds_mainline, so that it
# does not clash with uleds.ko; it makes the same /dev/uleds: load one of the two at a time.
if up_to_date "$outdir/uleds-mainline.ko" "$tarball" "$self"; then
	echo "build-modules: uleds-mainline.ko is up to date"
else
	echo "build-modules: building uleds-mainline.ko from $tarball for $kver"
	fresh_src uleds-mainline
	tar -xJf "$tarball" -C "$src" --strip-components=3 --wildcards \
		'linux-source-*/drivers/leds/uleds.c' ||
		die "cannot extract drivers/leds/uleds.c from $tarball"
	cat >"$src/Kbuild" <<'EOF'
obj-m += uleds-mainline.o
uleds-mainline-y := uleds.o
EOF
	make_module uleds-mainline
fi

# --- ledtrig-many.ko ------------------------------------------------------------------
# 200 LED triggers with long names (tests/kernel/ledtrig-many.c): a trigger attribute longer
# than two pages.
one_file_module ledtrig-many
