#!/bin/bash
# SPDX-License-Identifier: MIT
# Second stage in the test VM, on the host's root (overlay): loads the modules, then runs
# the test script and prints the markers vm-run.sh reads.
#
# usage: guest-init.sh plain|shell|prepare-systemd|systemd-run RUNDIR
#   RUNDIR holds vars (BUILD_ROOT, GUEST_INIT, KMOD_DIR, KVER, TEST_CWD, TERM_SIZE),
#   env (the host's ULEDSD_* variables) and args (SCRIPT and its arguments, as a bash array).
# Markers (one line each on the console):
#   @@ULEDSD-VM-START@@          setup done, the test starts now
#   @@ULEDSD-VM-SETUP-FAILED@@   setup failed (not worth a retry: it fails the same again)
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

setup_failed() {
	echo "uledsd-vm: setup failed: $*"
	echo "@@ULEDSD-VM-SETUP-FAILED@@"
	sync
	# plain/shell: the initramfs powers off when we return; elsewhere power off here.
	[ "$mode" = systemd-run ] && systemctl poweroff -ff
	[ "$mode" = prepare-systemd ] && poweroff -f
	exit 1
}

# The initramfs loaded the modules (uleds, gpio-sim, configfs, LED triggers). modprobe
# learns where uleds and gpio-sim are, so modprobe@uleds.service and modules-load.d work.
setup_modules() {
	cat >/etc/modprobe.d/uledsd-vm.conf <<EOF
install uleds /sbin/insmod $KMOD_DIR/uleds.ko
install gpio_sim /sbin/modprobe configfs && /sbin/insmod $KMOD_DIR/gpio-sim.ko
EOF
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config ||
		setup_failed "mount configfs"
	[ -d /sys/module/uleds ] && [ -d /sys/module/gpio_sim ] || setup_failed "uleds or gpio_sim is not loaded"
	[ -c /dev/uleds ] || setup_failed "/dev/uleds did not appear after loading uleds.ko"
}

# Before systemd starts: write the units that run the test, and keep
# systemd from doing what is slow over 9p or pointless in a test VM.
prepare_systemd() {
	local u
	rm -f /.dockerenv # systemd would think it runs in a container
	mkdir -p /etc/systemd/system /etc/tmpfiles.d /etc/systemd/journald.conf.d
	for u in getty.target timers.target systemd-timesyncd.service systemd-pstore.service \
		systemd-firstboot.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
		systemd-repart.service systemd-machine-id-commit.service e2scrub_reap.service \
		apt-daily.service apt-daily-upgrade.service man-db.service fstrim.service \
		systemd-journal-flush.service systemd-ask-password-wall.path; do
		ln -sf /dev/null "/etc/systemd/system/$u"
	done
	# tmp.conf says "D /tmp": cleaning /tmp over 9p took ~55 s. /tmp is a fresh tmpfs anyway.
	echo 'd /tmp 1777 root root -' >/etc/tmpfiles.d/tmp.conf
	printf '[Journal]\nStorage=volatile\n' >/etc/systemd/journald.conf.d/uledsd-vm.conf

	cat >/etc/systemd/system/uledsd-vm.target <<EOF
[Unit]
Description=uledsd kernel test
Requires=basic.target uledsd-vm.service
After=basic.target
AllowIsolate=yes
EOF
	# Type=simple: startup completes while the test runs, so it can wait for
	# "systemctl is-system-running --wait" itself.
	cat >/etc/systemd/system/uledsd-vm.service <<EOF
[Unit]
Description=uledsd kernel test script
After=basic.target
DefaultDependencies=no

[Service]
Type=simple
ExecStart=/bin/bash $GUEST_INIT systemd-run $run
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/console
EOF
}

run_test() {
	local rc
	# shellcheck source=/dev/null
	. "$run/args" # sets ARGS=(SCRIPT ARG...)
	cd "$TEST_CWD" || cd /
	echo "@@ULEDSD-VM-START@@ uptime=$(cut -d' ' -f1 /proc/uptime)"
	bash "${ARGS[@]}" </dev/null
	rc=$?
	sync
	echo "@@ULEDSD-VM-EXIT rc=$rc@@"
}

case $mode in
plain)
	hostname uledsd-vm
	ip link set lo up
	setup_modules
	run_test
	;;
shell)
	hostname uledsd-vm
	ip link set lo up
	setup_modules
	[ -n "$TERM_SIZE" ] && stty -F /dev/ttyS0 rows "${TERM_SIZE% *}" cols "${TERM_SIZE#* }"
	cd "$TEST_CWD" || cd /
	echo "uledsd-vm: a shell in the guest ($KVER); modules from $KMOD_DIR are loaded."
	echo "uledsd-vm: 'exit' or Ctrl-D powers off; Ctrl-A x kills qemu."
	TERM=${TERM_NAME:-vt100} setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	;;
prepare-systemd)
	setup_modules
	prepare_systemd
	;;
systemd-run)
	run_test
	systemctl poweroff -ff
	;;
*)
	echo "guest-init.sh: unknown mode $mode" >&2
	exit 2
	;;
esac
