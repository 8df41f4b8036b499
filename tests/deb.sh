#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages: builds them (dpkg-buildpackage -us -uc -b, build dependencies installed
# with apt), checks them with lintian (no error, no warning; overrides only with a reason in
# debian/*.lintian-overrides), rebuilds them with a higher version for an upgrade (on request), and
# installs them with apt in a fresh Debian 12 chroot (debootstrap minbase + bookworm-backports)
# to prove their dependencies resolve and their maintainer scripts work there.
#
# usage: tests/deb.sh BUILD_DIR [build|arm64|upgrade|dkms|chroot]...   (default: build chroot)
#   build   BUILD_DIR/deb/release/*.deb (meson's version), checked by lintian
#   arm64   BUILD_DIR/deb/arm64/*.deb: uledsd and uleds-dkms cross-built for arm64
#           (dpkg-buildpackage -a arm64 -Ppkg.uledsd.nopanel; the :arm64 -dev packages from
#           tests/cross-arm64.sh), checked by lintian; tests/cross-arm64.sh BUILD deb installs
#           them on an emulated arm64 board
#   upgrade BUILD_DIR/deb/upgrade/*.deb (VERSION+rebuild1), to try an upgrade by hand:
#           apt install ./BUILD_DIR/deb/upgrade/uledsd_*.deb keeps every LED (re-execution)
#   dkms    BUILD_DIR/deb/dkms/uleds-VERSION.dkms.tar.gz: the module source of the uleds-dkms
#           package built by DKMS on the host for the kernel the VM tests boot (ULEDSD_KVER,
#           else the newest 6.12 with image and headers), binaries only; the kernel test
#           deb-install-upgrade-purge hands it to the package's postinst (no build in the guest)
#   chroot  apt install of BUILD_DIR/deb/release/*.deb in a debootstrap chroot, then purge
# Needs root (apt, debootstrap, chroot). The mirror is the one of the system's own bookworm
# entry in /etc/apt/sources.list.d/*.sources, read at run time.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: tests/deb.sh BUILD_DIR [build|upgrade|dkms|chroot]..." >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)/deb
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build chroot)
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
# No -dbgsym packages: nothing here uses them, and they cost build time.
export DEB_BUILD_OPTIONS="noddebs${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}"

fail() { echo "FAIL: deb: $*"; exit 1; }
ok() { echo "ok: deb: $*"; }
[ "$(id -u)" = 0 ] || fail "run as root (apt-get build-dep, debootstrap, chroot)"

# bookworm_uris (the system's own Debian entry, read at run time) and ensure_backports.
. "$src/tests/lib-apt.sh"

# meson (for the version) and jq: on a fresh system they come first.
if ! command -v meson >/dev/null || ! command -v jq >/dev/null; then
	mkdir -p "$out"
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends meson jq \
		>"$out/apt-meson.log" 2>&1 || { cat "$out/apt-meson.log"; fail "installing meson and jq"; }
fi
version=$(meson introspect --projectinfo "$src/meson.build" | jq -r .version)

# A copy of the source tree (what git tracks, plus files not yet committed), so that the
# build's files land in BUILD_DIR and not next to the source.
copy_source() {
	local dst=$1
	rm -rf "$dst"
	mkdir -p "$dst"
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$src" ls-files -z --cached --others --exclude-standard |
			(cd "$src" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
			tar -C "$src" --null -T - -cf - | tar -C "$dst" -xf -
	else
		tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$dst" -xf -
	fi
}

# dpkg-buildpackage -b or -B ... in DIR; the .debs and .changes go to DEST.
build_in() {
	local dir=$1 dest=$2 log=$3
	shift 3
	(cd "$dir" && dpkg-buildpackage -us -uc -J"$(nproc)" "$@") >"$log" 2>&1 ||
		{ tail -n 60 "$log"; fail "dpkg-buildpackage in $dir (log: $log)"; }
	rm -rf "$dest"
	mkdir -p "$dest"
	mv "$(dirname "$dir")"/*.deb "$(dirname "$dir")"/*.changes "$(dirname "$dir")"/*.buildinfo "$dest"/
}

step_build() {
	local t0=$SECONDS tree=$out/tree/uledsd-$version lint added
	# libgpiod-dev >= 2 is in bookworm-backports only; apt-get build-dep would take bookworm's
	# 1.6 and fail, so it is named with its release here.
	added=$(ensure_backports deb) || fail "no bookworm-backports (libgpiod 2)"
	if [ -n "$added" ]; then
		echo "$added"
		apt-get -o DPkg::Lock::Timeout=600 update -q >"$out/apt-update.log" 2>&1 ||
			{ cat "$out/apt-update.log"; fail "apt-get update"; }
	fi
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends dpkg-dev debhelper dh-dkms fakeroot lintian \
		libgpiod-dev/bookworm-backports >"$out/apt-tools.log" 2>&1 ||
		{ cat "$out/apt-tools.log"; fail "installing dpkg-dev, debhelper, dh-dkms, lintian, libgpiod-dev from bookworm-backports"; }
	rm -rf "$out/tree"
	copy_source "$tree"
	apt-get -o DPkg::Lock::Timeout=600 build-dep -y -q "$tree" >"$out/build-dep.log" 2>&1 ||
		{ cat "$out/build-dep.log"; fail "apt-get build-dep (debian/control's Build-Depends)"; }
	build_in "$tree" "$out/release" "$out/build.log" -b
	for p in uledsd uleds-dkms uledsd-panel; do
		ls "$out/release/${p}_${version}_"*.deb >/dev/null 2>&1 || fail "no ${p}_${version} package was built"
	done
	ok "built $(cd "$out/release" && echo *.deb) in $((SECONDS - t0)) s"

	# lintian: nothing at warning level or above (overrides carry their reason).
	lint=$out/lintian.log
	lintian --fail-on error,warning --display-info "$out/release"/*.changes >"$lint" 2>&1 ||
		{ cat "$lint"; fail "lintian found errors or warnings (above)"; }
	ok "lintian: no errors or warnings ($(grep -c '^I: ' "$lint" || true) info tags in $lint; overrides with their reasons in debian/*.lintian-overrides)"

	rm -rf "$out/tree"
}

# The arm64 packages, cross-built. No panel: bookworm's libgtk-4-dev:arm64 cannot be installed
# beside the amd64 one (tests/cross-arm64.sh says why).
step_arm64() {
	local t0=$SECONDS tree=$out/tree-arm64/uledsd-$version lint
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		fail "arm64 is not a foreign architecture here: run tests/cross-arm64.sh BUILD daemon first"
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends dpkg-dev debhelper dh-dkms fakeroot lintian \
		crossbuild-essential-arm64 libgpiod-dev:arm64/bookworm-backports >"$out/apt-arm64.log" 2>&1 ||
		{ cat "$out/apt-arm64.log"; fail "installing the cross tools and libgpiod-dev:arm64 from bookworm-backports"; }
	rm -rf "$out/tree-arm64"
	copy_source "$tree"
	apt-get -o DPkg::Lock::Timeout=600 build-dep -y -q -a arm64 -Ppkg.uledsd.nopanel "$tree" \
		>"$out/build-dep-arm64.log" 2>&1 ||
		{ cat "$out/build-dep-arm64.log"; fail "apt-get build-dep -a arm64 (debian/control's Build-Depends)"; }
	build_in "$tree" "$out/arm64" "$out/build-arm64.log" -b -a arm64 -Ppkg.uledsd.nopanel
	ls "$out/arm64/uledsd_${version}_arm64.deb" "$out/arm64/uleds-dkms_${version}_all.deb" >/dev/null ||
		fail "no uledsd_${version}_arm64.deb or uleds-dkms_${version}_all.deb was built"
	[ "$(dpkg-deb -f "$out/arm64/uledsd_${version}_arm64.deb" Architecture)" = arm64 ] ||
		fail "uledsd_${version}_arm64.deb is not an arm64 package"
	dpkg-deb --fsys-tarfile "$out/arm64/uledsd_${version}_arm64.deb" | tar -xOf - ./usr/sbin/uledsd >"$out/arm64/uledsd.bin"
	file -b "$out/arm64/uledsd.bin" | grep -q 'ARM aarch64' ||
		fail "the packaged /usr/sbin/uledsd is not an aarch64 program: $(file -b "$out/arm64/uledsd.bin")"
	rm -f "$out/arm64/uledsd.bin"
	ok "cross-built $(cd "$out/arm64" && echo *.deb) in $((SECONDS - t0)) s"
	lint=$out/lintian-arm64.log
	lintian --fail-on error,warning --display-info "$out/arm64"/*.changes >"$lint" 2>&1 ||
		{ cat "$lint"; fail "lintian found errors or warnings in the arm64 packages (above)"; }
	ok "lintian (arm64): no errors or warnings ($(grep -c '^I: ' "$lint" || true) info tags in $lint)"
	rm -rf "$out/tree-arm64"
}

step_upgrade() {
	local t0=$SECONDS up=$out/tree-upgrade/uledsd-$version
	# The upgrade: the same source with a higher version, architecture-dependent packages only
	# and without the panel (the upgrade test upgrades uledsd; GTK is the slowest part).
	rm -rf "$out/tree-upgrade"
	copy_source "$up"
	{
		printf 'uledsd (%s+rebuild1) unstable; urgency=medium\n\n' "$version"
		printf '  * Rebuild with a higher version, for the upgrade test (tests/deb.sh).\n\n'
		printf ' -- %s  %s\n\n' "$(sed -n 's/^Maintainer: //p' "$up/debian/control")" "$(date -R)"
		cat "$up/debian/changelog"
	} >"$up/debian/changelog.new"
	mv "$up/debian/changelog.new" "$up/debian/changelog"
	build_in "$up" "$out/upgrade" "$out/build-upgrade.log" -B -Ppkg.uledsd.nopanel
	ls "$out/upgrade/uledsd_${version}+rebuild1_"*.deb >/dev/null || fail "no uledsd ${version}+rebuild1 package"
	ok "rebuilt as ${version}+rebuild1 in $((SECONDS - t0)) s"
	rm -rf "$out/tree-upgrade"
}

step_dkms() {
	local t0=$SECONDS top=$out/dkms kver=${ULEDSD_KVER:-} b deb d
	deb=$(ls "$out/release"/uleds-dkms_"${version}"_all.deb 2>/dev/null) ||
		fail "no uleds-dkms_${version} in $out/release: run tests/deb.sh BUILD_DIR build first"
	# The kernel vm-run.sh boots: the newest 6.12 with both an image and headers.
	if [ -z "$kver" ]; then
		for b in $(ls -d /lib/modules/6.12.*/build 2>/dev/null | sort -V); do
			[ -e "/boot/vmlinuz-$(basename "$(dirname "$b")")" ] && kver=$(basename "$(dirname "$b")")
		done
	fi
	[ -n "$kver" ] && [ -d "/lib/modules/$kver/build" ] ||
		fail "no 6.12 kernel with /boot/vmlinuz-V and /lib/modules/V/build (run tests/setup-deps.sh)"
	# Private DKMS trees (as tests/kmod-dkms.sh): the host's /var/lib/dkms stays untouched.
	rm -rf "$top"
	mkdir -p "$top/tree" "$top/install"
	dpkg-deb -x "$deb" "$top/pkg"
	d=(dkms --dkmstree "$top/tree" --sourcetree "$top/pkg/usr/src" --installtree "$top/install")
	{ "${d[@]}" add -m uleds -v "$version" && "${d[@]}" build -m uleds -v "$version" -k "$kver" &&
		"${d[@]}" mktarball -m uleds -v "$version" -k "$kver" --binaries-only \
			--archive "$top/uleds-$version.dkms.tar.gz"; } >"$top/dkms.log" 2>&1 ||
		{ cat "$top/dkms.log"; fail "dkms add/build/mktarball of $(basename "$deb")'s source for $kver"; }
	tar -tzf "$top/uleds-$version.dkms.tar.gz" | grep -q "dkms_main_tree/$kver/.*/uleds.ko" ||
		fail "the DKMS tarball holds no uleds.ko for $kver"
	rm -rf "$top/tree" "$top/install" "$top/pkg"
	ok "DKMS built $(basename "$deb")'s module for $kver on the host: $top/uleds-$version.dkms.tar.gz ($((SECONDS - t0)) s)"
}

step_chroot() {
	local t0=$SECONDS root=$out/chroot uris mirror cvu aptopt=() debs=()
	uris=$(bookworm_uris) || fail "found no Debian bookworm entry in /etc/apt/sources.list{,.d}"
	mirror=${uris%% *}
	ls "$out/release"/*.deb >/dev/null 2>&1 || fail "no packages in $out/release: run tests/deb.sh BUILD_DIR build first"
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends debootstrap >"$out/apt-debootstrap.log" 2>&1 ||
		{ cat "$out/apt-debootstrap.log"; fail "installing debootstrap"; }
	# The host's apt may accept expired Release files (a snapshot mirror): so does the chroot's.
	cvu=$(apt-config dump Acquire::Check-Valid-Until | sed -n 's/^Acquire::Check-Valid-Until "\(.*\)";$/\1/p')
	[ -n "$cvu" ] && aptopt+=(-o "Acquire::Check-Valid-Until=$cvu")

	umount_all
	rm -rf "$root"
	debootstrap --variant=minbase bookworm "$root" "$mirror" >"$out/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$out/debootstrap.log"; fail "debootstrap bookworm from the system's mirror"; }
	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOT
Types: deb
URIs: $uris
Suites: bookworm bookworm-updates bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	# No services start in a chroot.
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mkdir -p "$root/debs"
	cp "$out/release"/*.deb "$root/debs/"
	for f in "$root"/debs/*.deb; do debs+=("/debs/$(basename "$f")"); done
	in_chroot() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
	in_chroot apt-get "${aptopt[@]}" update -q >"$out/chroot-apt.log" 2>&1 ||
		{ cat "$out/chroot-apt.log"; fail "apt-get update in the chroot"; }
	# --no-install-recommends: the Recommends of dkms would pull in 6.1 headers and build the
	# module for a kernel the chroot does not run.
	in_chroot apt-get "${aptopt[@]}" install -y -q --no-install-recommends "${debs[@]}" \
		>>"$out/chroot-apt.log" 2>&1 ||
		{ tail -n 60 "$out/chroot-apt.log"; fail "apt install of the packages in a fresh bookworm chroot"; }
	ok "apt installed $(cd "$root/debs" && echo *.deb) in a fresh bookworm + backports chroot"

	# What the packages promise, checked where they were installed.
	in_chroot getent group uledsd >/dev/null || fail "the group uledsd was not created (sysusers)"
	in_chroot uledsd --version | grep -qx "uledsd $version" || fail "uledsd --version in the chroot: $(in_chroot uledsd --version 2>&1)"
	in_chroot uledsctl --help >/dev/null || fail "uledsctl does not run in the chroot"
	in_chroot ldd /usr/bin/uledsd-panel | grep 'not found' && fail "uledsd-panel misses libraries"
	in_chroot systemctl is-enabled --quiet uledsd.service || fail "uledsd.service is not enabled after install"
	in_chroot dkms status | grep -q "^uleds/$version" || fail "DKMS does not know uleds/$version: $(in_chroot dkms status 2>&1)"
	in_chroot uledsd --check-config -c /usr/share/doc/uledsd >/dev/null 2>&1 ||
		fail "the packaged example.conf does not pass uledsd --check-config"
	for p in /lib/systemd/system/uledsd.service /usr/share/dbus-1/system.d/io.uledsd1.conf \
		/usr/share/polkit-1/actions/io.uledsd1.policy /usr/lib/modules-load.d/uleds.conf \
		"/usr/src/uleds-$version/dkms.conf" /usr/share/man/man8/uledsd.8.gz; do
		[ -e "$root$p" ] || fail "$p is missing after install"
	done
	# The kiosk unit ships but takes tty1 only when asked to (systemctl enable --now).
	[ -e "$root/lib/systemd/system/uledsd-panel-kiosk.service" ] || fail "uledsd-panel-kiosk.service is missing after install"
	in_chroot getent passwd uledsd-kiosk >/dev/null || fail "the user uledsd-kiosk was not created (sysusers)"
	in_chroot systemctl is-enabled --quiet uledsd-panel-kiosk.service &&
		fail "uledsd-panel-kiosk.service is enabled by the package: it must take tty1 only when asked"
	ok "the group uledsd exists, the unit is enabled, DKMS has uleds/$version, the programs run, the kiosk unit is shipped and not enabled"

	# Purge removes what uledsd keeps (as a running unit would have made it).
	mkdir -p "$root/var/lib/uledsd"
	echo 1 >"$root/var/lib/uledsd/led.state"
	in_chroot apt-get purge -y -q uledsd uleds-dkms uledsd-panel >"$out/chroot-purge.log" 2>&1 ||
		{ cat "$out/chroot-purge.log"; fail "apt purge in the chroot"; }
	[ ! -e "$root/var/lib/uledsd" ] || fail "purge left /var/lib/uledsd"
	[ ! -e "$root/usr/src/uleds-$version" ] || fail "purge left /usr/src/uleds-$version"
	in_chroot dkms status | grep -q "^uleds/" && fail "DKMS still lists uleds after purge"
	ok "purge removed /var/lib/uledsd, the module source and its DKMS entry ($((SECONDS - t0)) s in all)"
	umount_all
	rm -rf "$root"
}

umount_all() {
	local root=$out/chroot
	[ -d "$root" ] || return 0
	mountpoint -q "$root/proc" && umount "$root/proc"
	mountpoint -q "$root/dev" && umount -R "$root/dev"
	return 0
}
trap umount_all EXIT

mkdir -p "$out"
for s in "${steps[@]}"; do
	case $s in
	build) step_build ;;
	arm64) step_arm64 ;;
	upgrade) step_upgrade ;;
	dkms) step_dkms ;;
	chroot) step_chroot ;;
	*) echo "tests/deb.sh: unknown step $s (build, arm64, upgrade, dkms or chroot)" >&2; exit 2 ;;
	esac
done
