#!/bin/bash
# SPDX-License-Identifier: MIT
# The pwm backend under the installed uledsd.service (vm-run.sh --systemd): without a pwm LED
# uledsd-generator leaves the sandbox as shipped; a pwm LED added without daemon-reload finds
# sysfs read-only and the log says what to run; after daemon-reload the generated drop-in
# (the chip's device directory, AF_NETLINK, PrivateNetwork=no) lets it dim, follow the chip's
# removal and return through uevents, and a stop disables and unexports. A chip that is nowhere
# in sysfs at daemon-reload opens nothing (fail closed): the drop-in and the kernel log name it.
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

mkdir -p /etc/uledsd.d
exposure() { systemd-analyze security --no-pager $U 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }
dropin=/run/systemd/generator/$U.d/50-uledsd-sysfs.conf
# pwm_led FILE LED CHIP: /etc/uledsd.d/FILE.conf has LED on channel 0 of CHIP.
pwm_led() {
	printf '[%s]\nmax_brightness = 100\nbackends = pwm\npwm.chip = %s\npwm.channel = 0\npwm.period = 1ms\n' \
		"$2" "$3" >"/etc/uledsd.d/$1.conf"
}

# --- no pwm LED configured: the sandbox as shipped ---------------------------------------------
cat >/etc/uledsd.d/10-pwm.conf <<C
[sdpwm:white]
max_brightness = 100
backends = log
C
systemctl daemon-reload # runs the generator that meson install just put in place
assert_true "no pwm LED: the generator writes no drop-in" test ! -e "$dropin"
assert_eq "yes" "$(systemctl show -p PrivateNetwork --value $U)" "no pwm LED: PrivateNetwork=yes as shipped"
shipped=$(exposure)
echo "# systemd-analyze security, shipped: $shipped"

# --- a pwm LED whose chip is nowhere in sysfs: nothing opened, and said why ----------------------
MISSING=uledsd-no-such-pwm.0
pwm_led 20-missing sdpwm:missing $MISSING
systemctl daemon-reload
assert_true "a missing chip: the drop-in names it" grep -q "sdpwm:missing.*PWM $MISSING channel 0" "$dropin"
assert_true "a missing chip: nothing opened (no ReadWritePaths=, not all of /sys/devices)" \
	sh -c "! grep -q ReadWritePaths= $dropin"
assert_eq "yes" "$(systemctl show -p PrivateNetwork --value $U)" "a missing chip only: PrivateNetwork=yes as shipped"
# Its stderr is /dev/null under systemd 252: the generator writes to /dev/kmsg. journald takes
# "uledsd-generator:" for the record's identifier.
said="sdpwm:missing.*PWM $MISSING channel 0 is not in /sys now: nothing is opened for it"
assert_true "the kernel log has the generator's reason (dmesg)" \
	wait_for 10 sh -c "dmesg | grep -q 'uledsd-generator: .*$said'"
assert_true "and the journal (journalctl -k -t uledsd-generator)" \
	wait_for 10 sh -c "journalctl -b -k -t uledsd-generator -o cat --no-pager | grep -q '$said'"
assert_eq "$shipped" "$(exposure)" "a missing chip only: the exposure is the shipped one"

# --- a pwm LED added without daemon-reload: sysfs is read-only, and the log says what to run ----
pwm_led 10-pwm sdpwm:white $DEV
assert_true "systemctl start $U" systemctl start $U
assert_true "the LED exists" wait_for 10 test -e "$L/sdpwm:white/brightness"
assert_true "the read-only sysfs is explained, with the commands that fix it" \
	wait_for 10 journal_has "failed to set up PWM 0 of $DEV: Read-only file system (.*systemctl daemon-reload && systemctl restart uledsd"
assert_true "nothing stays exported" sh -c "! test -e $(chip_dir)/pwm0"
assert_true "systemctl stop" systemctl stop $U

# --- after daemon-reload: the generator opens the chip's device and uevents ---------------------
systemctl daemon-reload
assert_true "the generator wrote a drop-in" test -e "$dropin"
cat "$dropin" | sed 's/^/# /'
assert_true "the drop-in opens the chip's device directory, not all of sysfs" \
	grep -qx "ReadWritePaths=-$(readlink -f /sys/bus/platform/devices/$DEV)" "$dropin"
assert_eq 1 "$(grep -c ^ReadWritePaths= "$dropin")" "and nothing for the missing chip"
assert_true "the missing chip is still named" grep -q "sdpwm:missing.*PWM $MISSING channel 0" "$dropin"
assert_eq "no" "$(systemctl show -p PrivateNetwork --value $U)" "the unit runs in the host's network namespace (uevents)"
assert_true "systemctl start $U with the generated drop-in" systemctl start $U
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
echo "# systemd-analyze security with the generated pwm drop-in: $(exposure) (shipped: $shipped)"
assert_true "systemctl stop" systemctl stop $U
assert_true "a stop unexports pwm0" sh -c "! test -e $(chip_dir)/pwm0"
exit 0
