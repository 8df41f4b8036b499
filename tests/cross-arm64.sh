#!/bin/bash
# SPDX-License-Identifier: MIT
# arm64 (issue 21): cross-builds uledsd for aarch64 and builds kmod/ for Debian's arm64 kernel,
# on an amd64 Debian 12 machine. Installs what it needs with apt (arm64 as a foreign
# architecture), so it runs as root.
#
# usage: tests/cross-arm64.sh BUILD_DIR [daemon|kmod|boot|deb]...   (default: daemon kmod boot)
#   daemon  meson cross build in BUILD_DIR (cross/aarch64-linux-gnu.ini, the :arm64 -dev
#           packages): uledsd, uledsctl, uledsd-generator checked to be aarch64 executables,
#           then the unit suite run under qemu-user (the cross file's exe_wrapper). No panel:
#           bookworm's libgtk-4-dev:arm64 cannot be installed beside the amd64 one
#           (gobject-introspection:arm64 needs python3:arm64).
#   kmod    BUILD_DIR/linux-arm64: linux-source 6.12 (the version of the installed 6.12
#           headers) with the .config, Module.symvers and vmlinux (BTF) of Debian's arm64
#           headers package and Debian's release name, after `make modules_prepare` (Debian's
#           arm64 headers carry arm64 host tools: they cannot build here). Cached: prepared
#           again only when linux-source, those headers or this preparation change.
#           BUILD_DIR/kmod-arm64/uleds.ko: kmod/ built with W=1 (a warning fails), checked to
#           be an aarch64 relocatable with the arm64 kernel's vermagic and the symbol CRCs
#           of Debian's Module.symvers (so that kernel would load it).
#   boot    (issue 32) Debian's arm64 kernel of that version booted under qemu-system-aarch64
#           (virt, TCG) with an arm64 busybox initramfs (tests/arm64/init) and the host root
#           over 9p: tests/arm64/guest-test.sh loads uleds.ko and gpio-sim.ko built for arm64,
#           runs the ABI test from aarch64 and armhf programs, a torture run and uledsd with
#           gpio-sim. About 45 s.
#   deb     (issue 32; not in run-all.sh: it takes tens of minutes under emulation) the arm64
#           packages (tests/deb.sh BUILD_DIR arm64) installed with apt in a Debian 12 arm64
#           root booted in the same VM (tests/arm64/guest-deb.sh): DKMS, the module, uledsd.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: tests/cross-arm64.sh BUILD_DIR [daemon|kmod|boot|deb]..." >&2; exit 2; }
mkdir -p "$1"
b=$(cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(daemon kmod boot)
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)

fail() { echo "FAIL: arm64: $*"; exit 1; }
ok() { echo "ok: arm64: $*"; }
[ "$(id -u)" = 0 ] || fail "run as root (dpkg --add-architecture, apt-get install)"

# --- what it needs ------------------------------------------------------------------------
install_deps() {
	local t0=$SECONDS apt=(apt-get -o DPkg::Lock::Timeout=900 -q) log=$b/apt.log
	grep -Rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/ ||
		fail "no bookworm-backports in apt's sources (tests/setup-deps.sh adds it)"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	# apt knows arm64 packages only after an update following --add-architecture.
	if ! apt-cache show libc6:arm64 >/dev/null 2>&1; then
		"${apt[@]}" update >"$log" 2>&1 || { cat "$log"; fail "apt-get update (arm64 indexes)"; }
	fi
	# gcc-multilib conflicts with the cross compiler (both want /usr/include/asm): apt removes
	# it. uledsd's 32-bit test program needs only gcc-12-multilib (tests/kernel/meson.build).
	if dpkg-query -W -f '${Status}' gcc-multilib 2>/dev/null | grep -q 'ok installed'; then
		echo "arm64: gcc-multilib conflicts with gcc-12-aarch64-linux-gnu: apt removes it (setup-deps.sh installs gcc-12-multilib, which is all uledsd needs)"
	fi
	# pkg/release, not -t (as in setup-deps.sh). The :arm64 -dev packages are
	# Multi-Arch: same, so apt keeps them at the version of their amd64 twins.
	"${apt[@]}" install -y --no-install-recommends \
		crossbuild-essential-arm64 crossbuild-essential-armhf qemu-user qemu-system-arm cpio \
		file meson ninja-build pkg-config scdoc \
		libsystemd-dev:arm64 libinih-dev:arm64 libgpiod-dev:arm64/bookworm-backports \
		bc bison flex libssl-dev libelf-dev pahole xz-utils kmod >>"$log" 2>&1 ||
		{ cat "$log"; fail "installing the arm64 cross toolchain and :arm64 -dev packages (log above)"; }
	ok "cross toolchain, qemu-user and :arm64 -dev packages installed ($((SECONDS - t0)) s)"
}

# elf_machine FILE: readelf's "Machine:" of FILE.
elf_machine() { readelf -h "$1" | sed -n 's/^ *Machine: *//p'; }

# --- uledsd, uledsctl, the generator, and their unit tests under qemu-user ----------------
step_daemon() {
	local t0=$SECONDS exe m version
	local opts=(-Dwerror=true -Dgpio=enabled -Dman-pages=enabled -Dpanel=disabled)
	if [ -f "$b/build.ninja" ]; then
		meson configure "$b" "${opts[@]}" >"$b/setup.log" 2>&1
	else
		meson setup --cross-file "$src/cross/aarch64-linux-gnu.ini" "$b" "$src" "${opts[@]}" \
			>"$b/setup.log" 2>&1
	fi || { cat "$b/setup.log"; fail "meson setup with cross/aarch64-linux-gnu.ini"; }
	ninja -C "$b" >"$b/ninja.log" 2>&1 || { tail -n 60 "$b/ninja.log"; fail "ninja -C $b (log: $b/ninja.log)"; }
	for exe in daemon/uledsd ctl/uledsctl generator/uledsd-generator; do
		[ -f "$b/$exe" ] || fail "$exe was not built"
		m=$(elf_machine "$b/$exe")
		[ "$m" = AArch64 ] || fail "$exe is built for '$m', not AArch64"
		echo "  $(file -b "$b/$exe" | cut -d, -f1-3)  $exe"
	done
	ok "cross-built uledsd, uledsctl and uledsd-generator for AArch64 ($((SECONDS - t0)) s)"

	t0=$SECONDS
	version=$(qemu-aarch64 "$b/daemon/uledsd" --version 2>&1) ||
		fail "qemu-aarch64 daemon/uledsd --version: $version"
	meson test -C "$b" --suite unit --print-errorlogs --num-processes "$(nproc)" >"$b/unit.log" 2>&1 ||
		{ cat "$b/unit.log"; fail "the unit suite under qemu-aarch64 (above)"; }
	local n
	n=$(jq -s '[.[] | select(.result == "OK")] | length' "$b/meson-logs/testlog.json")
	[ "$(jq -s '[.[] | select(.result != "OK")] | length' "$b/meson-logs/testlog.json")" = 0 ] ||
		{ cat "$b/unit.log"; fail "a unit test did not pass (a skip counts as a failure)"; }
	[ "$n" -gt 0 ] || fail "no unit test ran"
	ok "$n unit tests pass on AArch64 under qemu-aarch64 ('$version', $((SECONDS - t0)) s)"
}

# --- linux-source 6.12 prepared for arm64, and uleds.ko built against it ------------------
# The amd64 6.12 kernel the kernel tests use (as setup-deps.sh picks it); its arm64 twin has
# the same version and the release name with -arm64.
find_kernel() {
	local bdir v
	kver=
	for bdir in $(ls -d /lib/modules/6.12.*-amd64/build 2>/dev/null | sort -V); do
		v=$(basename "$(dirname "$bdir")")
		[ -e "/boot/vmlinuz-$v" ] && kver=$v
	done
	[ -n "$kver" ] || fail "no 6.12 amd64 kernel with image and headers (run tests/setup-deps.sh)"
	krel=${kver%-amd64}-arm64
	hver=$(dpkg-query -W -f '${Version}' "linux-headers-$kver")
	tarball=/usr/src/linux-source-6.12.tar.xz
	[ -f "$tarball" ] && [ "$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null)" = "$hver" ] ||
		fail "linux-source-6.12 $hver (the version of linux-headers-$kver) is not installed (tests/setup-deps.sh installs it)"
}

# Debian's arm64 headers package, unpacked (not installed: its tools are arm64 programs).
fetch_arm64_headers() {
	local dir=$b/debian-arm64-headers pkg=linux-headers-$krel
	hdr=$dir/usr/src/$pkg
	[ -f "$dir/$pkg.version" ] && [ "$(cat "$dir/$pkg.version")" = "$hver" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && apt-get -q -o APT::Sandbox::User=root download "$pkg:arm64=$hver") >"$dir/download.log" 2>&1 ||
		{ cat "$dir/download.log"; fail "apt-get download $pkg:arm64=$hver"; }
	dpkg-deb -x "$dir"/*.deb "$dir"
	for f in .config Module.symvers vmlinux include/config/kernel.release; do
		[ -f "$hdr/$f" ] || fail "$pkg has no $f"
	done
	echo "$hver" >"$dir/$pkg.version"
}

# Prepares $tree. The stamp holds the versions and this function's own text.
prepare_tree() {
	local stamp t0=$SECONDS opt diff
	stamp="$krel $hver $(declare -f prepare_tree | sha256sum | cut -c1-16)"
	if [ "$(cat "$tree/.uledsd-prepared" 2>/dev/null)" = "$stamp" ]; then
		echo "arm64: $tree is prepared ($krel)"
		return 0
	fi
	echo "arm64: preparing $tree from $tarball for $krel"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1 ||
		fail "cannot unpack $tarball"
	cp "$hdr/.config" "$tree/.config"
	make -C "$tree" "${cross[@]}" KERNELRELEASE="$krel" olddefconfig >"$tree/prepare.log" 2>&1 ||
		{ cat "$tree/prepare.log"; fail "make olddefconfig for arm64"; }
	# Our toolchain is Debian's (gcc 12, pahole 1.24): the config should come out the same.
	# What differs is listed; what decides whether the module fits must not differ.
	diff=$("$tree/scripts/diffconfig" "$hdr/.config" "$tree/.config" || true)
	[ -z "$diff" ] || printf 'arm64: the prepared config differs from Debian'\''s:\n%s\n' "$diff"
	for opt in MODVERSIONS SMP PREEMPT_VOLUNTARY MODULE_UNLOAD LEDS_CLASS LEDS_CLASS_MULTICOLOR \
		LEDS_TRIGGERS DEBUG_INFO_BTF_MODULES; do
		[ "$(grep "^CONFIG_$opt=" "$tree/.config")" = "$(grep "^CONFIG_$opt=" "$hdr/.config")" ] ||
			fail "CONFIG_$opt differs from Debian's arm64 config after olddefconfig"
	done
	make -C "$tree" "${cross[@]}" KERNELRELEASE="$krel" -j"$(nproc)" modules_prepare \
		>>"$tree/prepare.log" 2>&1 ||
		{ tail -n 60 "$tree/prepare.log"; fail "make modules_prepare for arm64 (log: $tree/prepare.log)"; }
	# The kernel's exported symbols and their CRCs, and the BTF the modules' BTF builds on.
	cp "$hdr/Module.symvers" "$hdr/vmlinux" "$tree/"
	[ "$(cat "$tree/include/config/kernel.release")" = "$krel" ] ||
		fail "the prepared tree's release is '$(cat "$tree/include/config/kernel.release")', not $krel"
	echo "$stamp" >"$tree/.uledsd-prepared"
	echo "arm64: prepared in $((SECONDS - t0)) s"
}

step_kmod() {
	local t0=$SECONDS out=$b/kmod-arm64 log ko vm want crc sym bad=0 n=0
	tree=$b/linux-arm64
	find_kernel
	fetch_arm64_headers
	prepare_tree
	rm -rf "$out"
	log=$out.log
	if ! make -s -C "$src/kmod" KDIR="$tree" BUILD_DIR="$out" "${cross[@]}" W=1 >"$log" 2>&1 ||
		grep -E -i 'warning|error' "$log"; then
		cat "$log"
		fail "kmod against the arm64 tree $tree (W=1; log: $log)"
	fi
	ko=$out/uleds.ko
	[ "$(readelf -h "$ko" | sed -n 's/^ *Type: *//p' | cut -d' ' -f1)" = REL ] &&
		[ "$(elf_machine "$ko")" = AArch64 ] && readelf -h "$ko" | grep -q 'Class: *ELF64' ||
		fail "uleds.ko is not a 64-bit AArch64 relocatable: $(file -b "$ko")"
	# The vermagic Debian's arm64 kernel has (include/linux/vermagic.h for its config).
	want="$(cat "$hdr/include/config/kernel.release") SMP mod_unload modversions aarch64"
	vm=$(modinfo -F vermagic "$ko")
	[ "$vm" = "$want" ] || fail "uleds.ko's vermagic is '$vm', Debian's arm64 kernel has '$want'"
	# Each symbol's CRC as the arm64 kernel exports it (Module.symvers: CRC SYMBOL MODULE ...).
	while read -r crc sym; do
		n=$((n + 1))
		grep -q -P "^$crc\t$sym\t" "$hdr/Module.symvers" ||
			{ echo "uleds.ko wants $sym with CRC $crc: not so in Debian's Module.symvers"; bad=1; }
	done < <(modprobe --dump-modversions "$ko")
	[ $n -gt 0 ] && [ $bad = 0 ] || fail "uleds.ko's symbol versions do not match Debian's arm64 kernel ($n symbols)"
	ok "kmod builds warning-free (W=1) for arm64: $(file -b "$ko" | cut -d, -f1-2), vermagic '$vm', $n symbol CRCs as in Debian's Module.symvers ($((SECONDS - t0)) s)"
}

# --- the arm64 boot: Debian's arm64 kernel under qemu-system-aarch64 -----------------------
# download_deb DIR PACKAGE:ARCH=VERSION: the package unpacked in DIR (cached by version).
download_deb() {
	local dir=$1 pkg=$2
	[ "$(cat "$dir/.uledsd-version" 2>/dev/null)" = "$pkg" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && apt-get -q -o APT::Sandbox::User=root download "$pkg") >"$dir.download.log" 2>&1 ||
		{ cat "$dir.download.log"; fail "apt-get download $pkg"; }
	dpkg-deb -x "$dir"/*.deb "$dir"
	rm -f "$dir"/*.deb
	echo "$pkg" >"$dir/.uledsd-version"
}

# $b/arm64-root/lib/modules/$krel: the modules the guest loads (the 9p ones, every LED
# trigger, what uleds.ko and gpio-sim.ko need), uncompressed (busybox's insmod), with their
# modules.dep, out of Debian's arm64 image in $img.
prepare_module_tree() {
	local root=$b/arm64-root full=$img/lib/modules/$krel mods ko rel want
	mods=$root/lib/modules/$krel
	[ -d "$full" ] || fail "linux-image-$krel has no /lib/modules/$krel"
	depmod -b "$img" "$krel" || fail "depmod for $img"
	rm -rf "$root"
	mkdir -p "$mods"
	cp "$full"/modules.builtin "$full"/modules.builtin.modinfo "$full"/modules.order "$mods/"
	want=$( (echo 9pnet_virtio 9p configfs virtio_blk ext4 virtio_net
		find "$full/kernel/drivers/leds" -name '*.ko*' -printf '%f\n' | sed 's/\.ko.*//'
		modinfo -F depends "$b/arm64-modules/uleds.ko" "$b/arm64-modules/gpio-sim.ko" | tr , '\n') |
		tr ' ' '\n' | sed '/^$/d' | sort -u)
	for ko in $(for m in $want; do modprobe -d "$img" -S "$krel" --show-depends "$m"; done |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		rel=${ko#"$full"/}
		mkdir -p "$(dirname "$mods/$rel")"
		case $ko in
		*.xz) xz -dc "$ko" >"$mods/${rel%.xz}" ;;
		*) cp "$ko" "$mods/$rel" ;;
		esac
	done
	depmod -b "$root" "$krel" || fail "depmod for $root"
}

# The guest's tests, static: the ABI test for aarch64 and armhf, the torture test.
build_guest_tests() {
	local t=$b/arm64-tests k=$src/tests/kernel flags=(-static -O2 -Wall -Wextra -Werror -pthread -I"$src/kmod")
	mkdir -p "$t"
	aarch64-linux-gnu-gcc "${flags[@]}" "$k/uleds-abi.c" "$k/uleds-abi-group.c" -o "$t/uleds-abi-aarch64" &&
		arm-linux-gnueabihf-gcc "${flags[@]}" "$k/uleds-abi.c" "$k/uleds-abi-group.c" -o "$t/uleds-abi-armhf" &&
		aarch64-linux-gnu-gcc "${flags[@]}" "$k/uleds-torture.c" -o "$t/uleds-torture-aarch64" ||
		fail "cross-building the guest's test programs (static, aarch64 and armhf)"
	[ "$(elf_machine "$t/uleds-abi-armhf")" = ARM ] || fail "uleds-abi-armhf is not a 32-bit ARM program"
}

# The initramfs: arm64 busybox, tests/arm64/init, the 9p, virtio_blk, ext4 and virtio_net
# modules in load order.
make_initramfs() {
	local d=$b/arm64-initramfs ko
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/modules"
	cp "$b/busybox-arm64/bin/busybox" "$d/bin/busybox"
	cp "$src/tests/arm64/init" "$d/init"
	chmod 755 "$d/init"
	for ko in $(for m in 9pnet_virtio 9p virtio_blk ext4 virtio_net; do modprobe -d "$b/arm64-root" -S "$krel" --show-depends $m; done |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		cp "$ko" "$d/modules/"
		basename "$ko" >>"$d/modules/order"
	done
	(cd "$d" && find . | cpio -o -H newc --quiet) >"$b/arm64-initramfs.cpio"
}

# boot_once LOG TIMEOUT APPEND QEMU_ARG...: one boot of the arm64 kernel with the initramfs,
# APPEND after the common command line; stopped after TIMEOUT s (180 s to the test's start).
# Sets boot_s (seconds to @@ARM64-START@@, empty if it never came) and rc (the guest's exit
# status, empty if it never said).
boot_once() {
	local log=$1 timeout=$2 append=$3 qpid t0 now
	shift 3
	: >"$log"
	qemu-system-aarch64 -M virt -cpu cortex-a72 -smp 2 -m 1024 -accel tcg \
		-nodefaults -no-reboot -nographic -monitor none \
		-kernel "$img/boot/vmlinuz-$krel" -initrd "$b/arm64-initramfs.cpio" \
		-append "console=ttyAMA0 panic=-1 quiet loglevel=3 rdinit=/init $append" "$@" \
		-chardev "file,id=con,path=$log" -serial chardev:con </dev/null &
	qpid=$!
	t0=$(date +%s%N) boot_s= rc=
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 0.2
		now=$(($(date +%s%N) - t0))
		if [ -z "$boot_s" ] && grep -aq '^@@ARM64-START@@' "$log"; then
			boot_s=$((now / 100000000))
			boot_s=$((boot_s / 10)).$((boot_s % 10))
		fi
		if { [ -z "$boot_s" ] && [ $((now / 1000000000)) -ge 180 ]; } || [ $((now / 1000000000)) -ge "$timeout" ]; then
			echo "arm64: the VM timed out (180 s to boot, $timeout s in all): stopped"
			kill "$qpid"
			break
		fi
	done
	wait "$qpid" || true
	rc=$(tr -d '\r' <"$log" | sed -n 's/^@@ARM64-EXIT rc=\([0-9]*\)@@$/\1/p' | tail -n 1)
}

# run_vm LOG TIMEOUT WHAT APPEND QEMU_ARG...: boot_once, and once more when the guest never
# started (a boot failure under emulation is the infrastructure's, not a pass). The guest's
# TAP lines are printed; fails unless the guest ran and reported 0 failures.
run_vm() {
	local log=$1 timeout=$2 what=$3 attempt
	shift 2
	for attempt in 1 2; do
		boot_once "$log" "$timeout" "${@:2}"
		[ -n "$boot_s" ] && break
		echo "arm64: the guest never started its test (a boot failure under emulation; attempt $attempt):"
		tail -n 30 "$log"
	done
	tr -d '\r' <"$log" | grep -a -E '^(ok|not ok|#) '
	[ -n "$boot_s" ] || fail "infrastructure: the arm64 VM did not boot twice ($what; log: $log)"
	[ -n "$rc" ] || { tail -n 40 "$log"; fail "the arm64 guest died during $what (log: $log)"; }
	[ "$rc" = 0 ] || fail "$rc check(s) failed in the arm64 VM ($what; log: $log)"
}

# The kernel, its modules for the guest and the initramfs (cached downloads).
prepare_vm() {
	tree=$b/linux-arm64
	find_kernel
	[ -f "$tree/.uledsd-prepared" ] || step_kmod
	download_deb "$b/debian-arm64-image" "linux-image-$krel:arm64=$hver"
	img=$b/debian-arm64-image
	[ -f "$img/boot/vmlinuz-$krel" ] || fail "linux-image-$krel has no /boot/vmlinuz-$krel"
	download_deb "$b/busybox-arm64" "busybox-static:arm64"
	ULEDS_KBUILD=$tree ULEDS_KMAKE_ARGS="${cross[*]}" \
		bash "$src/tests/kernel/build-modules.sh" "$krel" "$b/arm64-modules" "$src" >"$b/arm64-modules.log" 2>&1 ||
		{ cat "$b/arm64-modules.log"; fail "building uleds.ko and gpio-sim.ko for arm64"; }
	[ "$(elf_machine "$b/arm64-modules/gpio-sim.ko")" = AArch64 ] || fail "gpio-sim.ko is not built for AArch64"
	prepare_module_tree
	make_initramfs
}

step_boot() {
	local t0=$SECONDS
	prepare_vm
	build_guest_tests
	[ -x "$b/daemon/uledsd" ] || step_daemon
	echo "arm64: prepared the boot (kernel, modules, initramfs, static tests) in $((SECONDS - t0)) s"
	t0=$SECONDS
	run_vm "$b/arm64-boot.log" 900 "the boot test" "uledsd.src=$src uledsd.build=$b" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	ok "booted Debian's arm64 $krel under qemu-system-aarch64 (TCG) in $boot_s s; uleds ABI (aarch64 and armhf), torture, uledsd with gpio-sim pass ($((SECONDS - t0)) s in all)"
}

# The arm64 packages on an emulated board: tests/deb.sh BUILD arm64 builds them; a Debian 12
# arm64 root (minbase) made by debootstrap --foreign here (it only downloads and unpacks: the
# host has no binfmt_misc for a qemu-user chroot) on an ext4 image, with apt's sources of
# this system plus bookworm-backports; the VM boots into it, with qemu's user network for apt,
# and runs tests/arm64/guest-deb.sh (second stage, apt install of the packages, DKMS, checks).
step_deb() {
	local t0=$SECONDS root=$b/arm64-debroot uris mirror cvu
	bash "$src/tests/deb.sh" "$b" arm64 || fail "the arm64 packages (tests/deb.sh $b arm64)"
	prepare_vm
	# shellcheck source=tests/lib-apt.sh
	. "$src/tests/lib-apt.sh"
	uris=$(bookworm_uris) || fail "found no Debian bookworm entry in /etc/apt/sources.list{,.d}"
	mirror=${uris%% *}
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends debootstrap e2fsprogs \
		>"$b/apt-debootstrap.log" 2>&1 || { cat "$b/apt-debootstrap.log"; fail "installing debootstrap"; }
	rm -rf "$root"
	debootstrap --foreign --arch=arm64 --variant=minbase bookworm "$root" "$mirror" \
		>"$b/arm64-debootstrap.log" 2>&1 ||
		{ tail -n 30 "$b/arm64-debootstrap.log"; fail "debootstrap --foreign --arch=arm64 bookworm (log: $b/arm64-debootstrap.log)"; }
	# In a container debootstrap makes /proc a symlink to the host's: the guest mounts its own.
	[ -L "$root/proc" ] && rm "$root/proc"
	mkdir -p "$root/debs" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/run"
	cp "$b/deb/arm64"/*.deb "$root/debs/"
	install -m 755 "$src/tests/arm64/guest-deb.sh" "$root/uledsd-arm64-deb.sh"
	mkdir -p "$root/uledsd-test"
	install -m 755 "$b/busybox-arm64/bin/busybox" "$root/uledsd-test/busybox" # ip: no iproute2 in minbase
	install -m 644 "$src/tests/arm64/tap.sh" "$root/uledsd-test/tap.sh"
	# The mirror's addresses as this machine resolves them (its resolver may not answer qemu's).
	for h in $(printf '%s\n' $uris | sed -n 's|^[a-z]*://\([^/:]*\).*|\1|p' | sort -u); do
		getent ahostsv4 "$h" | awk -v h="$h" '$2 == "STREAM" { print $1, h; exit }'
	done >>"$root/etc/hosts"
	rm -f "$root/etc/apt/sources.list"
	printf 'Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$uris" >"$root/etc/apt/sources.list.d/debian.sources"
	# The host's apt may accept expired Release files (a snapshot mirror): so does the board's.
	cvu=$(apt-config dump Acquire::Check-Valid-Until | sed -n 's/^Acquire::Check-Valid-Until "\(.*\)";$/\1/p')
	[ -z "$cvu" ] || echo "Acquire::Check-Valid-Until \"$cvu\";" >"$root/etc/apt/apt.conf.d/50uledsd-test"
	# An ext4 disk, not a 9p share: the second stage makes device nodes and checks that they
	# work, which qemu's 9p server refuses.
	rm -f "$b/arm64-debroot.img"
	mke2fs -q -t ext4 -L uledsd-arm64 -d "$root" "$b/arm64-debroot.img" 4G >/dev/null ||
		fail "mke2fs -d of the arm64 root"
	echo "arm64: prepared the arm64 root (debootstrap's first stage, $(du -sm "$root" | cut -f1) MB, on an ext4 image) in $((SECONDS - t0)) s"
	rm -rf "$root"
	t0=$SECONDS
	run_vm "$b/arm64-deb.log" 3600 "the package test" "uledsd.mode=deb" \
		-drive "file=$b/arm64-debroot.img,format=raw,if=virtio,cache=unsafe" \
		-netdev user,id=net0 -device virtio-net-pci,netdev=net0
	ok "installed uledsd_arm64 and uleds-dkms with apt on an emulated arm64 board: DKMS built uleds for $krel there, the module loads, uledsd runs ($((SECONDS - t0)) s in the VM)"
	rm -f "$b/arm64-debroot.img"
}

install_deps
for step in "${steps[@]}"; do
	case $step in
	daemon | kmod | boot | deb) "step_$step" ;;
	*) echo "tests/cross-arm64.sh: unknown step '$step' (daemon, kmod, boot, deb)" >&2; exit 2 ;;
	esac
done
