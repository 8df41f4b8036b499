#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs everything uledsd's build, tests, demo and bench need on Debian 12 (idempotent).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
# Another apt (a parallel build, unattended-upgrades) waits its turn instead of failing.
apt_lock=(-o DPkg::Lock::Timeout=900)

if [ "$(id -u)" != 0 ]; then
	echo "setup-deps: run as root (it installs packages with apt-get)" >&2
	exit 1
fi

# bookworm-backports carries libgpiod >= 2 and the 6.12 kernel.
. "$(dirname "${BASH_SOURCE[0]}")/lib-apt.sh"
ensure_backports setup-deps

apt-get "${apt_lock[@]}" update -q
apt-get "${apt_lock[@]}" install -y -q --no-install-recommends \
	build-essential meson ninja-build pkg-config libsystemd-dev libinih-dev scdoc \
	systemd dbus dbus-daemon util-linux procps kmod xz-utils cpio busybox-static \
	qemu-system-x86 bc jq valgrind gcc-12-multilib libxml2-utils librsvg2-bin \
	libgtk-4-dev librsvg2-common fonts-dejavu-core xvfb x11-apps imagemagick xdotool \
	polkitd weston cage xwayland iproute2 libglib2.0-bin zsh fish strace \
	dpkg-dev debhelper dh-dkms fakeroot lintian debootstrap
# pkg/release, not -t: -t would also move systemd and friends to backports versions.
# dkms here, so the headers it depends on are the backports ones of the same transaction.
apt-get "${apt_lock[@]}" install -y -q --no-install-recommends \
	libgpiod-dev/bookworm-backports gpiod/bookworm-backports \
	linux-image-amd64/bookworm-backports linux-headers-amd64/bookworm-backports dkms

# Newest installed 6.12 kernel that has both an image and headers.
kver=""
for b in $(ls -d /lib/modules/6.12.*/build 2>/dev/null | sort -V); do
	v=$(basename "$(dirname "$b")")
	[ -e "/boot/vmlinuz-$v" ] && kver=$v
done
if [ -z "$kver" ]; then
	echo "setup-deps: no 6.12 kernel with image and headers after install" >&2
	exit 1
fi
# linux-source must match the headers exactly (apt's default candidate may be newer).
hver=$(dpkg-query -W -f '${Version}' "linux-headers-$kver")
srcpkg=linux-source-$(echo "$kver" | cut -d. -f1,2)
if [ "$(dpkg-query -W -f '${Version}' "$srcpkg" 2>/dev/null || true)" != "$hver" ]; then
	apt-get "${apt_lock[@]}" install -y -q --no-install-recommends --allow-downgrades "$srcpkg=$hver"
fi

# bookworm's own 6.1 headers (kmod/ must build against both); the meta package name is
# taken by the 6.12 one now, so install the versioned package it points to.
h61=$(apt-cache show 'linux-headers-amd64/bookworm' 2>/dev/null |
	sed -n 's/^Depends: *\(linux-headers-6\.1[^ ,]*\).*/\1/p' | head -n1)
if [ -z "$h61" ]; then
	echo "setup-deps: cannot find bookworm's 6.1 headers package" >&2
	exit 1
fi
# ... and its image and source of the same version: the kernel module's ABI and torture tests
# also boot 6.1 (bookworm's own kernel). The source's default candidate (bookworm-security) is
# newer than bookworm's headers: pin it.
v61=$(apt-cache show "$h61/bookworm" 2>/dev/null | sed -n 's/^Version: *//p' | head -n1)
k61=${h61#linux-headers-}
[ -n "$v61" ] || { echo "setup-deps: cannot find the version of $h61 in bookworm" >&2; exit 1; }
apt-get "${apt_lock[@]}" install -y -q --no-install-recommends --allow-downgrades "$h61=$v61" \
	"linux-image-$k61-unsigned=$v61" "linux-source-6.1=$v61"
echo "setup-deps: ok (kernel $kver and $k61, $srcpkg $hver, $h61 $v61)"
