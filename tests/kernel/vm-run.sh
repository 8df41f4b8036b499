#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs one test script inside a real Linux kernel (qemu, TCG) on the host's own root.
#
# usage: vm-run.sh [--systemd] [--shell] [--timeout S] SCRIPT [ARGS...]
#   --systemd    boot systemd as PID 1 and run SCRIPT from a unit (uledsd-vm.service)
#   --shell      no script: an interactive shell in the guest on this terminal
#   --timeout S  seconds the test may run once it started (default 450, 480 with --systemd)
# env:
#   ULEDSD_BUILD_ROOT   meson build dir (default: the repo's build/); shared read-write
#                       with the guest at the same path, module cache under kernel-cache/
#   ULEDSD_SOURCE_ROOT  source tree (default: this script's ../..)
#   ULEDSD_KVER         kernel release to boot (default: newest 6.12 with image + headers)
#   ULEDSD_VM_BOOT_TIMEOUT  seconds until the test must have started (default 90, 180
#                       with --systemd: measured up to 21 s / 61 s on a loaded 2-core host)
#   ULEDSD_*            every such variable is exported into the guest
#   ULEDS_KMOD_SRC      build uleds.ko from this directory (see build-modules.sh)
# exit: the test's own exit code; 99 (meson's ERROR) when the VM never ran the test, even
#   after one retry, or the guest setup (module loading) failed; 1 when the test timed out
#   or the guest died while running it (a test that takes the kernel down fails).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=plain
timeout=
while [ $# -gt 0 ]; do
	case $1 in
	--systemd) mode=systemd ;;
	--shell) mode=shell ;;
	--timeout)
		timeout=$2
		shift
		;;
	--timeout=*) timeout=${1#--timeout=} ;;
	--) shift; break ;;
	-*) echo "vm-run: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done

infra() {
	echo "vm-run: infrastructure error: $*" >&2
	exit 99
}

export ULEDSD_SOURCE_ROOT=${ULEDSD_SOURCE_ROOT:-$here/../..}
ULEDSD_SOURCE_ROOT=$(cd "$ULEDSD_SOURCE_ROOT" && pwd -P)
export ULEDSD_BUILD_ROOT=${ULEDSD_BUILD_ROOT:-$ULEDSD_SOURCE_ROOT/build}
mkdir -p "$ULEDSD_BUILD_ROOT"
ULEDSD_BUILD_ROOT=$(cd "$ULEDSD_BUILD_ROOT" && pwd -P)

if [ "$mode" != shell ]; then
	[ $# -ge 1 ] || { echo "usage: vm-run.sh [--systemd] [--shell] [--timeout S] SCRIPT [ARGS...]" >&2; exit 2; }
	[ -f "$1" ] || infra "no test script $1"
	script=$(readlink -f "$1")
	# The guest has fresh tmpfs on /tmp and /run: only the build dir is shared from there.
	case $script in
	"$ULEDSD_BUILD_ROOT"/* | "$ULEDSD_SOURCE_ROOT"/*) ;;
	/tmp/* | /run/*) infra "$script is under /tmp or /run, which the guest does not share (put it in the source or build dir)" ;;
	esac
	shift
fi

# The newest 6.12 kernel with both an image and headers (6.1 headers exist for kmod builds).
if [ -z "${ULEDSD_KVER:-}" ]; then
	for b in $(ls -d /lib/modules/6.12.*/build 2>/dev/null | sort -V); do
		v=$(basename "$(dirname "$b")")
		[ -e "/boot/vmlinuz-$v" ] && ULEDSD_KVER=$v
	done
	[ -n "${ULEDSD_KVER:-}" ] ||
		infra "no 6.12 kernel with /boot/vmlinuz-V and /lib/modules/V/build (run tests/setup-deps.sh)"
fi
export ULEDSD_KVER
kver=$ULEDSD_KVER
for p in qemu-system-x86_64 busybox cpio xz modprobe; do
	command -v "$p" >/dev/null || infra "$p is not installed (run tests/setup-deps.sh)"
done

# ULEDSD_KERNEL_CACHE: another build dir's cache (the sanitizer build shares the ordinary one's).
cache=${ULEDSD_KERNEL_CACHE:-$ULEDSD_BUILD_ROOT/kernel-cache}/$kver
"$here/build-modules.sh" "$kver" "$cache" "$ULEDSD_SOURCE_ROOT" >&2 ||
	infra "building the kernel modules failed (see above)"

# --- initramfs (cached): static busybox, kernel modules (9p, overlay, configfs, LED
# triggers), initramfs-init ---------
initramfs=$cache/initramfs.cpio
(
	flock 9
	if [ -z "$(find "$here/initramfs-init" "$here/vm-run.sh" "$(command -v busybox)" \
		-newer "$initramfs" -print -quit 2>/dev/null)" ] && [ -f "$initramfs" ]; then
		exit 0
	fi
	echo "vm-run: generating $initramfs" >&2
	d=$(mktemp -d "$cache/initramfs.XXXXXX")
	trap 'rm -rf "$d"' EXIT
	mkdir -p "$d/bin" "$d/modules"
	cp "$(command -v busybox)" "$d/bin/busybox"
	cp "$here/initramfs-init" "$d/init"
	chmod 755 "$d/init"
	# virtio_pci: built in on 6.12, a module on 6.1.
	for m in virtio_pci 9pnet_virtio 9p overlay configfs ledtrig-timer ledtrig-heartbeat ledtrig-oneshot \
		ledtrig-pattern ledtrig-transient ledtrig-default-on; do
		modprobe -S "$kver" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
		name=$(basename "$ko")
		case $ko in
		*.xz) xz -dc "$ko" >"$d/modules/${name%.xz}"; name=${name%.xz} ;;
		*) cp "$ko" "$d/modules/$name" ;;
		esac
		echo "$name" >>"$d/modules/order"
	done
	[ -s "$d/modules/order" ] || { echo "vm-run: found no 9p modules for $kver" >&2; exit 1; }
	(cd "$d" && find . | cpio -o -H newc --quiet) >"$initramfs.tmp"
	mv "$initramfs.tmp" "$initramfs"
) 9>"$cache/.initramfs.lock" || infra "generating the initramfs failed"

# --- the run directory: what the guest needs to know, shared through the build dir ------
runs=$ULEDSD_BUILD_ROOT/kernel-cache/runs
mkdir -p "$runs"
rundir=$(mktemp -d "$runs/run.XXXXXX")
qpid=
tpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	rm -rf "$rundir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	echo "BUILD_ROOT=$(shq "$ULEDSD_BUILD_ROOT")"
	echo "GUEST_INIT=$(shq "$here/guest-init.sh")"
	echo "KMOD_DIR=$(shq "$cache")"
	echo "KVER=$(shq "$kver")"
	echo "TEST_CWD=$(shq "$PWD")"
	echo "TERM_SIZE=$(shq "$(stty size 2>/dev/null || true)")"
	echo "TERM_NAME=$(shq "${TERM:-vt100}")"
} >"$rundir/vars"
while IFS= read -r -d '' kv; do
	name=${kv%%=*}
	[[ $name =~ ^ULEDSD_[A-Za-z0-9_]*$ ]] && echo "export $name=$(shq "${kv#*=}")"
done < <(env -0) >"$rundir/env"
if [ "$mode" != shell ]; then
	{
		printf 'ARGS=('
		for a in "$script" "$@"; do printf ' %s' "$(shq "$a")"; done
		printf ' )\n'
	} >"$rundir/args"
fi

cmdline="console=ttyS0 panic=-1 quiet loglevel=3 rdinit=/init uledsd.run=${rundir#"$ULEDSD_BUILD_ROOT"/}"
case $mode in
systemd) cmdline+=" uledsd.mode=systemd systemd.unit=uledsd-vm.target systemd.show_status=error" ;;
*) cmdline+=" uledsd.mode=$mode" ;;
esac
qemu=(qemu-system-x86_64 -nodefaults -no-reboot -nographic -monitor none
	-accel tcg -cpu max -m 1024 -smp 2 -bios /usr/share/qemu/qboot.rom
	-kernel "/boot/vmlinuz-$kver" -initrd "$initramfs" -append "$cmdline"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$ULEDSD_BUILD_ROOT,mount_tag=build,security_model=none,multidevs=remap"
	-virtfs "local,path=$ULEDSD_SOURCE_ROOT,mount_tag=src,security_model=none,readonly=on,multidevs=remap")

if [ "$mode" = shell ]; then
	# Serial console and qemu's monitor on this terminal: Ctrl-A x quits, Ctrl-A c monitor.
	"${qemu[@]}" -serial mon:stdio
	exit 0
fi

[ -n "$timeout" ] || { timeout=450; [ "$mode" = systemd ] && timeout=480; }
default_boot_timeout=90
[ "$mode" = systemd ] && default_boot_timeout=180
default_boot_timeout=${ULEDSD_VM_BOOT_TIMEOUT:-$default_boot_timeout}

# boot_once: runs qemu with the console in $rundir/console, streamed to stdout.
# Sets outcome to one of: exit (test_rc set), setup-failed, no-start, died, timeout.
boot_once() {
	local log=$rundir/console started=0 start_t now boot_timeout line
	boot_timeout=$default_boot_timeout
	: >"$log"
	"${qemu[@]}" -chardev "file,id=con,path=$log" -serial chardev:con </dev/null &
	qpid=$!
	tail -n +1 -s 0.2 -F --pid="$qpid" "$log" 2>/dev/null | sed -u 's/\r$//' &
	tpid=$!
	start_t=$SECONDS
	outcome=
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 0.25
		now=$SECONDS
		if [ $started = 0 ]; then
			if grep -aq '^@@ULEDSD-VM-START@@' "$log"; then
				started=1 start_t=$now
			elif grep -aq '^@@ULEDSD-VM-SETUP-FAILED@@' "$log"; then
				break
			elif [ $((now - start_t)) -ge "$boot_timeout" ]; then
				outcome=no-start-timeout
				break
			fi
		else
			grep -aq '^@@ULEDSD-VM-EXIT rc=[0-9]*@@' "$log" && break
			if [ $((now - start_t)) -ge "$timeout" ]; then
				outcome=timeout
				break
			fi
		fi
	done
	# The marker is printed just before poweroff: give qemu a moment to exit by itself.
	for _ in 1 2 3 4 5 6 7 8; do kill -0 "$qpid" 2>/dev/null || break; sleep 0.25; done
	kill "$qpid" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
	qpid=
	wait "$tpid" 2>/dev/null || true
	tpid=
	line=$(tr -d '\r' <"$log" | grep -a '^@@ULEDSD-VM-EXIT rc=[0-9]*@@$' | tail -n1 || true)
	if [ -n "$line" ]; then
		outcome="exit"
		test_rc=${line#*rc=}
		test_rc=${test_rc%@@}
	elif grep -aq '^@@ULEDSD-VM-SETUP-FAILED@@' "$log"; then
		outcome=setup-failed
	elif [ -z "$outcome" ]; then
		if grep -aq '^@@ULEDSD-VM-START@@' "$log"; then outcome=died; else outcome=no-start; fi
	fi
}

for attempt in 1 2; do
	boot_once
	case $outcome in
	exit)
		if [ "$test_rc" = 77 ]; then
			echo "vm-run: the test exited 77 (skip); kernel tests may not skip: failing it" >&2
			exit 1
		fi
		exit "$test_rc"
		;;
	setup-failed) infra "the guest could not load the test modules (see the guest output above)" ;;
	timeout)
		echo "vm-run: the test timed out after $timeout s (still running in the guest); failing it" >&2
		exit 1
		;;
	died)
		echo "vm-run: the guest died while the test ran (kernel panic or poweroff?); failing it" >&2
		exit 1
		;;
	no-start | no-start-timeout)
		why="qemu exited before the test started"
		[ $outcome = no-start-timeout ] && why="the test had not started after $default_boot_timeout s"
		if [ $attempt = 1 ]; then
			echo "vm-run: $why (attempt 1: a rare early-boot crash under emulation?); booting again" >&2
		else
			infra "the VM did not run the test ($why, twice)"
		fi
		;;
	esac
done
