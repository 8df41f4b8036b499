#!/bin/bash
# SPDX-License-Identifier: MIT
# Second stage in the test VM, on the host's root (overlay), after initramfs-init set up
# mounts and modules: runs the test script and prints the markers vm-run.sh reads.
#
# usage: guest-init.sh plain|shell|systemd-run RUNDIR
#   RUNDIR holds vars (BUILD_ROOT, GUEST_INIT, KMOD_DIR, KVER, TEST_CWD, TERM_SIZE,
#   TERM_NAME), env (the host's ULEDSD_* variables) and args (ARGS=(SCRIPT ARG...)).
# Markers (one line each on the console):
#   @@ULEDSD-VM-START@@ ...      the test starts now
#   @@ULEDSD-VM-EXIT rc=N@@      the test exited with N
set -u

mode=$1 run=$2
# shellcheck source=/dev/null
. "$run/vars"

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
export ULEDSD_VM=1 ULEDSD_KVER=$KVER ULEDSD_KMOD_DIR=$KMOD_DIR
# shellcheck source=/dev/null
. "$run/env"

# PID 1 in plain and shell mode (initramfs-init's switch_root): power off, never exit.
power_off() {
	sync
	/bin/busybox poweroff -f
	sleep 10
}

run_test() {
	local rc
	# shellcheck source=/dev/null
	. "$run/args"
	cd "$TEST_CWD" 2>/dev/null || cd /
	# The console is a tty: keep the meson log free of colours and pagers.
	export TERM=dumb SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat
	echo "@@ULEDSD-VM-START@@ uptime=$(cut -d' ' -f1 /proc/uptime)"
	bash "${ARGS[@]}" </dev/null
	rc=$?
	sync
	echo "@@ULEDSD-VM-EXIT rc=$rc@@"
}

case $mode in
plain)
	run_test
	power_off
	;;
systemd-run)
	run_test
	systemctl poweroff -ff
	;;
shell)
	[ -n "$TERM_SIZE" ] && stty -F /dev/ttyS0 rows "${TERM_SIZE% *}" cols "${TERM_SIZE#* }"
	cd "$TEST_CWD" 2>/dev/null || cd /
	echo "uledsd-vm: a shell in the guest ($KVER), modules from $KMOD_DIR loaded."
	echo "uledsd-vm: 'exit' or Ctrl-D powers off; Ctrl-A x kills qemu."
	TERM=${TERM_NAME:-vt100} setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	power_off
	;;
*)
	echo "guest-init.sh: unknown mode $mode" >&2
	exit 2
	;;
esac
