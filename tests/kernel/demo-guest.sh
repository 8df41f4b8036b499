#!/bin/bash
# SPDX-License-Identifier: MIT
# The README's demo: uledsd with conf/example.conf plus a GPIO LED, on a real kernel.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_bin) || exit 1
work=$(mktemp -d)
L=/sys/class/leds
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

mkdir -p "$work/conf"
cp "$src/conf/example.conf" "$work/conf/10-example.conf"
bus=none
if [ -f "$src/conf/io.uledsd1.conf" ] && start_dbus "$src/conf/io.uledsd1.conf"; then
	bus=system
fi
gpio=no
if "$uledsd" --help | grep -q gpio && [ -d /sys/kernel/config/gpio-sim ] &&
	gpiosim_new demo-chip 4 LED_STATUS LED_BLINK; then
	gpio=yes
	cat >"$work/conf/20-gpio.conf" <<'C'
[demo:blue:gpio]
; A timer-driven LED that a real GPIO line follows (here a gpio-sim line).
max_brightness = 1
trigger = timer
trigger.delay_on = 250
trigger.delay_off = 250
backends = log gpio dbus
gpio.chip = demo-chip
gpio.line = LED_BLINK
log.max_rate = 4
C
	[ "$bus" = system ] || sed -i 's/backends = log gpio dbus/backends = log gpio/' "$work/conf/20-gpio.conf"
fi

say "configuration"
cat "$work"/conf/*.conf
say "starting: uledsd --config-dir $work/conf --bus $bus"
bg_start "$uledsd" --config-dir "$work/conf" --bus "$bus"
pid=$BG_PID
assert_true "LEDs created" wait_for 10 test -d "$L/demo:amber:status"
sleep 1

say "ls /sys/class/leds"
ls -l $L | grep demo
for led in $L/demo:*; do
	printf '%-24s max_brightness=%s trigger=%s\n' "$(basename "$led")" "$(cat "$led/max_brightness")" \
		"$(grep -o '\[[^]]*\]' "$led/trigger")"
done

say "echo 128 > $L/demo:amber:status/brightness  (the log backend reports it)"
echo 128 >"$L/demo:amber:status/brightness"
sleep 0.5
assert_eq 128 "$(cat "$L/demo:amber:status/brightness")" "sysfs brightness of demo:amber:status"

if [ $gpio = yes ]; then
	say "demo:blue:gpio blinks (timer) and drives gpio-sim line LED_BLINK: 12 samples, 100 ms apart"
	seen=""
	for i in $(seq 12); do
		v=$(gpiosim_value demo-chip 1)
		seen="$seen$v"
		printf '%s ' "$v"
		sleep 0.1
	done
	echo
	case $seen in *0*1* | *1*0*) pass "the GPIO line follows the timer trigger" ;; *) fail "the GPIO line did not toggle: $seen" ;; esac
	gpioinfo -c "$GPIOSIM_CHIP" 2>/dev/null | sed -n '1,3p'
fi

if [ "$bus" = system ]; then
	say "busctl tree io.uledsd1"
	busctl --system tree io.uledsd1 --no-pager
	say "busctl get-property ... Brightness of demo:amber:status"
	path=$(busctl --system call io.uledsd1 /io/uledsd1 io.uledsd1.Manager GetLED s demo:amber:status | awk '{print $2}' | tr -d '"')
	busctl --system get-property io.uledsd1 "$path" io.uledsd1.LED Brightness
fi

say "SIGTERM: uledsd removes its LEDs"
kill -TERM "$pid"
wait "$pid"
assert_true "no demo LED left" sh -c "! ls $L | grep -q '^demo:'"
say "what uledsd logged is above, interleaved (stderr)"
