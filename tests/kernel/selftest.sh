#!/bin/bash
# SPDX-License-Identifier: MIT
# Harness self-test (guest): the kernel, the modules and the helpers other tests rely on.
. "$(dirname "$0")/lib.sh"

kver=$(uname -r)
case $kver in
6.12.*) pass "guest kernel is the 6.12 one ($kver)" ;;
*) fail "guest kernel is $kver, expected 6.12.*" ;;
esac
assert_eq "$ULEDSD_KVER" "$kver" "guest runs the kernel vm-run.sh picked"

for m in uleds gpio_sim configfs ledtrig_timer ledtrig_heartbeat ledtrig_oneshot ledtrig_pattern \
	ledtrig_transient ledtrig_default_on; do
	assert_true "module $m is loaded" test -d "/sys/module/$m"
done
assert_true "/dev/uleds is a character device" test -c /dev/uleds
assert_true "configfs is mounted with gpio-sim in it" test -d /sys/kernel/config/gpio-sim
assert_true "modprobe knows uleds (for modprobe@uleds.service)" modprobe uleds

# A uleds LED appears in sysfs while its fd is open.
exec 3<>/dev/uleds
printf 'selftest::led%*s' $((64 - 13)) '' | tr ' ' '\0' >/tmp/led.bin
printf '\x01\x00\x00\x00' >>/tmp/led.bin # max_brightness = 1 (little endian)
cat /tmp/led.bin >&3
assert_true "a uleds LED shows up in /sys/class/leds" wait_for 5 test -e /sys/class/leds/selftest::led
assert_true "the timer trigger is available" grep -qw timer /sys/class/leds/selftest::led/trigger
exec 3>&-
assert_true "the LED goes away with its fd" wait_for 5 test ! -e /sys/class/leds/selftest::led

# gpio-sim: named lines, a value driven by gpioset, the pull once it lets go.
gpiosim_new selftest 4 LED_A LED_B
assert_true "gpio-sim chip $GPIOSIM_CHIP exists" test -c "$GPIOSIM_PATH"
assert_eq "LED_B" "$(cat "/sys/kernel/config/gpio-sim/selftest/bank0/line1/name")" "line 1 is named"
assert_true "gpioinfo shows the named line" sh -c "gpioinfo -c $GPIOSIM_CHIP | grep -q LED_B"
assert_eq 0 "$(gpiosim_value selftest 1)" "line LED_B reads 0 before it is driven"
bg_start gpioset -c "$GPIOSIM_CHIP" LED_B=1
assert_true "gpioset drives LED_B to 1" wait_for 5 sh -c "[ \"\$(cat /sys/devices/platform/$GPIOSIM_DEV/$GPIOSIM_CHIP/sim_gpio1/value)\" = 1 ]"
kill "$BG_PID"; wait "$BG_PID" 2>/dev/null
gpiosim_set_pull selftest 1 pull-up
assert_eq 1 "$(gpiosim_value selftest 1)" "released line follows the pull (pull-up)"
gpiosim_live selftest 0
assert_true "live=0 removes the chip" test ! -e "$GPIOSIM_PATH"
gpiosim_live selftest 1
assert_true "live=1 brings it back" test -c "/dev/$(gpiosim_chip selftest)"

# D-Bus
start_dbus
assert_true "dbus-daemon answers busctl list" sh -c 'busctl --system list --no-pager | grep -q org.freedesktop.DBus'

# wait_for gives up
start=$(_lib_usec)
wait_for 0.3 false
assert_eq 1 $? "wait_for returns 1 on timeout"
elapsed=$((($(_lib_usec) - start) / 1000))
assert_true "wait_for timed out after ~300 ms (${elapsed} ms)" test "$elapsed" -ge 300 -a "$elapsed" -lt 2000
