#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd-generator on a made-up sysfs: which directories the unit's drop-in opens, and no
# drop-in at all when no LED has a backend that writes sysfs. (Under systemd, with a real
# PWM chip: the kernel test systemd-pwm-generator.)
gen=${1:?usage: test-generator.sh ULEDSD_GENERATOR}
# In a cross build meson names the exe_wrapper (qemu-aarch64) that runs it.
eval "wrap=(${MESON_EXE_WRAPPER:-})"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0 failed=0
check() { # DESCRIPTION COMMAND...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=1; fi
}
S=$t/sys
mkdir -p "$S/devices/platform/chipa.0/pwm/pwmchip0" "$S/devices/platform/chipb.1" \
	"$S/class/pwm" "$S/bus/platform/devices" "$S/bus/i2c/devices" "$t/conf"
ln -s ../../../devices/platform/chipa.0 "$S/bus/platform/devices/chipa.0"
ln -s ../../../devices/platform/chipb.1 "$S/bus/platform/devices/chipb.1" # no driver: no pwmchip
ln -s ../../devices/platform/chipa.0/pwm/pwmchip0 "$S/class/pwm/pwmchip0"
ln -s ../../../chipa.0 "$S/devices/platform/chipa.0/pwm/pwmchip0/device"
run() { # writes $t/out/uledsd.service.d/50-uledsd-sysfs.conf, if anything
	rm -rf "$t/out" && mkdir "$t/out"
	ULEDSD_SYSFS=$S ULEDSD_CONFIG_DIR=$t/conf "${wrap[@]}" "$gen" "$t/out" "$t/early" "$t/late"
}
dropin=$t/out/uledsd.service.d/50-uledsd-sysfs.conf
has() { grep -qx -- "$1" "$dropin"; }
lacks() { ! grep -q -- "$1" "$dropin"; }

cat >"$t/conf/10.conf" <<'C'
[b:log]
backends = log
[b:gpio-like]
backends = log
C
check "no pwm LED: exit 0" run
check "no pwm LED: no drop-in, the sandbox stays as shipped" test ! -e "$t/out/uledsd.service.d"

cat >"$t/conf/20.conf" <<'C'
[b:by-number]
backends = pwm
pwm.chip = pwmchip0
pwm.channel = 0
[b:by-name]
backends = pwm, log
pwm.chip = chipa.0
pwm.channel = 1
[b:unbound]
backends = pwm
pwm.chip = chipb.1
pwm.channel = 0
C
check "pwm LEDs: exit 0" run
check "pwmchipN: its device's directory is opened, once for two LEDs" \
	test "$(grep -c "^ReadWritePaths=-$S/devices/platform/chipa.0$" "$dropin")" = 1
check "a device without its driver yet is found on its bus" has "ReadWritePaths=-$S/devices/platform/chipb.1"
check "uevents: AF_NETLINK" has "RestrictAddressFamilies=AF_UNIX AF_NETLINK"
check "uevents: the host's network namespace" has "PrivateNetwork=no"
check "each LED is named with its file and line" grep -q "\[b:unbound\] pwm backend ($t/conf/20.conf:10)" "$dropin"
check "not all of /sys/devices" lacks "ReadWritePaths=-$S/devices$"

cat >"$t/conf/30.conf" <<'C'
[b:later]
backends = pwm
pwm.chip = usb-pwm.7
pwm.channel = 0
[b:broken]
backends = pwm
pwm.chip = chipa.0
pwm.channel = lots
C
check "a chip that is nowhere yet: exit 0" run
check "a chip that is nowhere yet: /sys/devices, said why" \
	grep -A1 -q "may appear anywhere below $S/devices" "$dropin"
check "and no narrower path beside it" test "$(grep -c ^ReadWritePaths= "$dropin")" = 1
check "an LED with errors is not counted" lacks "b:broken"
echo "1..$n"
exit $failed
