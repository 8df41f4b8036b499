#!/bin/bash
# SPDX-License-Identifier: MIT
# The pwm backend under the installed uledsd.service (vm-run.sh --systemd): the shipped sandbox
# keeps sysfs read-only, which the backend's state explains; with the drop-in uledsd.conf(5)
# documents (ReadWritePaths= for the chip, AF_NETLINK, PrivateNetwork=no) it dims, follows the
# chip's removal and return through uevents, and a stop disables and unexports.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
. "$(dirname "$0")/lib.sh"

U=uledsd.service
L=/sys/class/leds
DEV=uledsd-test-pwm.0
DRV=/sys/bus/platform/drivers/uledsd-test-pwm
build=${ULEDSD_BUILD_ROOT:?}
[ "$(cat /proc/1/comm)" = systemd ] || { fail "PID 1 is not systemd: run with vm-run.sh --systemd"; exit 1; }
timeout 90 systemctl is-system-running --wait >/dev/null
meson install -C "$build" --no-rebuild --quiet >/tmp/install.log 2>&1 ||
	{ cat /tmp/install.log; fail "meson install into the guest root"; exit 1; }
insmod "$ULEDSD_KMOD_DIR/pwm-test.ko" || { fail "insmod pwm-test.ko"; exit 1; }
chip_dir() { echo /sys/class/pwm/"$(ls /sys/bus/platform/devices/$DEV/pwm/)"; }
pwm() { cat "$(chip_dir)/pwm0/$1" 2>/dev/null; }
duty_is() { [ "$(pwm duty_cycle)" = "$1" ]; }
journal_has() { journalctl -u $U -o cat --no-pager | grep -q -- "$1"; }

mkdir -p /etc/uledsd.d /etc/systemd/system/$U.d
cat >/etc/uledsd.d/10-pwm.conf <<C
[sdpwm:white]
max_brightness = 100
backends = pwm
pwm.chip = $DEV
pwm.channel = 0
pwm.period = 1ms
C

# --- the shipped sandbox: sysfs is read-only, and the state says where to look -------------------
assert_true "systemctl start $U" systemctl start $U
assert_true "the LED exists" wait_for 10 test -e "$L/sdpwm:white/brightness"
assert_true "the read-only sysfs is explained" \
	wait_for 10 journal_has "failed to set up PWM 0 of $DEV: Read-only file system (a sandbox keeps sysfs read-only"
assert_true "nothing stays exported" sh -c "! test -e $(chip_dir)/pwm0"
assert_true "systemctl stop" systemctl stop $U

# --- with the documented drop-in -------------------------------------------------------------
cat >/etc/systemd/system/$U.d/60-pwm.conf <<C
[Service]
ReadWritePaths=/sys/devices/platform/$DEV
RestrictAddressFamilies=AF_UNIX AF_NETLINK
PrivateNetwork=no
C
systemctl daemon-reload
assert_true "systemctl start $U with the drop-in" systemctl start $U
assert_true "pwm0 is exported and enabled" wait_for 10 sh -c "[ \"\$(cat $(chip_dir)/pwm0/enable 2>/dev/null)\" = 1 ]"
echo 50 >"$L/sdpwm:white/brightness"
assert_true "brightness 50 % is a 500000 ns duty cycle" wait_for 10 duty_is 500000
assert_true "the export record is in the unit's RuntimeDirectory" test -e "/run/uledsd/pwm/$DEV:0"
echo "$DEV" >"$DRV/unbind"
assert_true "the chip's removal reaches the sandbox (uevent)" \
	wait_for 10 journal_has "waiting for PWM chip $DEV (removed)"
echo 25 >"$L/sdpwm:white/brightness"
echo "$DEV" >"$DRV/bind"
assert_true "the chip's return is taken (uevent) at the current brightness" wait_for 10 duty_is 250000
security=$(systemd-analyze security --no-pager $U 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
echo "# systemd-analyze security with the pwm drop-in: $security"
assert_true "systemctl stop" systemctl stop $U
assert_true "a stop unexports pwm0" sh -c "! test -e $(chip_dir)/pwm0"
exit 0
