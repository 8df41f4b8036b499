#!/bin/bash
# SPDX-License-Identifier: MIT
# DKMS round trip of the module source that `meson install` ships: dkms add, build and install
# for one kernel, then remove, all in private trees under the build directory (the system's
# /var/lib/dkms and /lib/modules/KVER/updates are not touched). Checks that the installed
# module is built for that kernel from the same source as kmod/ (modinfo srcversion).
#
# usage: tests/kmod-dkms.sh BUILD_DIR KERNEL_RELEASE
set -euo pipefail

build=$(cd "$1" && pwd)
kver=$2
top=$build/dkms-check/$kver
fail() { echo "FAIL: dkms ($kver): $*"; exit 1; }

command -v dkms >/dev/null || fail "dkms is not installed (tests/setup-deps.sh installs it)"
[ -d "/lib/modules/$kver/build" ] || fail "no headers at /lib/modules/$kver/build"

rm -rf "$top"
mkdir -p "$top/tree" "$top/install/$kver"
meson install -C "$build" --quiet --destdir "$top/dest" >"$top/meson-install.log" 2>&1 ||
	{ cat "$top/meson-install.log"; fail "meson install"; }
prefix=$(meson introspect "$build" --buildoptions | jq -r '.[] | select(.name == "prefix") | .value')
version=$(meson introspect "$build" --projectinfo | jq -r .version)
srctree=$top/dest$prefix/src
[ -f "$srctree/uleds-$version/dkms.conf" ] || fail "meson install put no dkms.conf in $prefix/src/uleds-$version"
grep -q "^PACKAGE_VERSION=\"$version\"" "$srctree/uleds-$version/dkms.conf" ||
	fail "dkms.conf does not carry the project version $version"

d=(dkms --dkmstree "$top/tree" --sourcetree "$srctree" --installtree "$top/install")
step() {
	local what=$1
	shift
	if ! "${d[@]}" "$@" -m uleds -v "$version" >"$top/$what.log" 2>&1; then
		cat "$top/$what.log"
		fail "dkms $what"
	fi
}
step add add
step build build -k "$kver"
step install install -k "$kver"
status=$("${d[@]}" status -m uleds -v "$version" -k "$kver" 2>/dev/null)
case $status in
*": installed"*) ;;
*) fail "dkms status says '$status', not installed" ;;
esac
ko=$(find "$top/install/$kver" -name 'uleds.ko*' | head -n1)
[ -n "$ko" ] || fail "dkms install left no uleds.ko under updates/"
vermagic=$(modinfo -F vermagic "$ko")
[ "${vermagic%% *}" = "$kver" ] || fail "installed module is for '${vermagic%% *}', not $kver"
# srcversion is a checksum of the module's sources: the DKMS build is the source in kmod/.
ref=$top/ref
make -s -C "$(dirname "${BASH_SOURCE[0]}")/../kmod" KDIR="/lib/modules/$kver/build" BUILD_DIR="$ref" \
	>"$top/ref.log" 2>&1 || { cat "$top/ref.log"; fail "reference build of kmod/"; }
[ "$(modinfo -F srcversion "$ko")" = "$(modinfo -F srcversion "$ref/uleds.ko")" ] ||
	fail "the DKMS module's srcversion differs from kmod/'s: the installed source is not kmod/"
step remove remove -k "$kver"
[ -z "$(find "$top/install/$kver" -name 'uleds.ko*')" ] || fail "dkms remove left the module installed"
echo "ok: dkms add/build/install/remove of uleds $version for $kver (${ko#"$top/install/$kver"/})"
