#!/bin/bash
# SPDX-License-Identifier: MIT
# The README's demo, a short guided tour on a real kernel: LEDs from a config file, uledsctl,
# a GPIO line that follows a kernel trigger, a recorded waveform and the panel. Pictures go to
# $ULEDSD_BUILD_ROOT/demo/. Also run by CI (kernel test demo-tour), so the README's first
# command keeps working.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${ULEDSD_BUILD_ROOT:?}
uledsd=$(uledsd_gpio_bin) || exit 1
ctl=$build/ctl/uledsctl
panel=$build/panel/uledsd-panel
out=$build/demo
work=$(mktemp -d)
L=/sys/class/leds
mkdir -p "$out" "$work/conf"
rm -f "$out"/*

step=0
say() {
	step=$((step + 1))
	printf '\n\033[1m%d. %s\033[0m\n' "$step" "$1"
	[ $# -lt 2 ] || printf '   %s\n' "${@:2}"
}
run() { # run CMD...: show a command as a user would type it, then run it
	printf '\033[2m$ %s\033[0m\n' "$*"
	"$@"
}
uledsctl() { "$ctl" --no-pager "$@"; }

start_dbus "$src/conf/io.uledsd1.conf" || exit 1
gpiosim_new demo-chip 4 LED_STATUS LED_BLINK || exit 1

cat >"$work/conf/board.conf" <<'C'
; /etc/uledsd.d/board.conf: three LEDs this "board" does not have in hardware.
[demo:green:heartbeat]
trigger = heartbeat           ; the kernel's heartbeat trigger drives it
backends = dbus

[demo:amber:status]
backends = dbus log           ; anyone may write brightness; the journal logs it

[demo:red:blink]
max_brightness = 1
trigger = timer
trigger.delay_on = 100
trigger.delay_off = 400
backends = dbus gpio          ; a real GPIO line follows it (here: gpio-sim)
gpio.chip = demo-chip
gpio.line = LED_BLINK
C

say "A configuration file describes the LEDs" \
	"Each section becomes /sys/class/leds/NAME; backends say where brightness goes."
cat "$work/conf/board.conf"

say "Start uledsd" "(as a service: systemctl enable --now uledsd; here in the foreground)"
printf '\033[2m$ uledsd --config-dir %s\033[0m\n' "$work/conf"
bg_start "$uledsd" --config-dir "$work/conf" --bus system 2>"$out/uledsd.log"
uledsd_pid=$BG_PID
assert_true "uledsd created the LEDs" wait_for 15 test -d "$L/demo:red:blink" || exit 1
wait_for 15 sh -c "busctl --system --no-pager list | grep -q '^io.uledsd1 '"
run ls -d $L/demo:*

say "uledsctl shows every LED: brightness, trigger, backends"
run uledsctl list

say "Change an LED like any other LED-class device" \
	"uledsctl talks D-Bus; sysfs and kernel triggers see the same LED."
run uledsctl set demo:amber:status 50%
run cat "$L/demo:amber:status/brightness"
assert_eq 128 "$(cat "$L/demo:amber:status/brightness")" "50% of 255 reached sysfs"
run uledsctl get demo:amber:status

say "Kernel triggers, selected and tuned from the command line" \
	"The same as writing /sys/class/leds/NAME/trigger and the trigger's attribute files."
run uledsctl trigger demo:amber:status timer delay_on=50 delay_off=950
run cat "$L/demo:amber:status/delay_on"
assert_eq 50 "$(cat "$L/demo:amber:status/delay_on")" "the timer trigger's delay_on was written"
run uledsctl trigger demo:amber:status none

say "A kernel trigger drives a real output" \
	"demo:red:blink has the timer trigger (100 ms on, 400 ms off); its gpio backend drives"
printf '   %s\n' "gpio-sim line LED_BLINK. Twenty samples of the line, 50 ms apart:"
seen=""
for _ in $(seq 20); do
	v=$(gpiosim_value demo-chip 1)
	seen="$seen$v"
	_lib_sleep 0.05
done
echo "   $seen" | sed 's/0/_/g; s/1/#/g'
case $seen in *0*1* | *1*0*) pass "the GPIO line follows the timer trigger" ;;
*) fail "the GPIO line did not toggle: $seen" ;; esac

if "$ctl" record --help >/dev/null 2>&1; then
	say "Record what a trigger does, with kernel timestamps" \
		"Every transition, lossless; a summary per LED and a waveform picture."
	run uledsctl record demo:red:blink demo:green:heartbeat --duration 3 \
		--svg "$out/record.svg" >"$out/record.txt"
	tail -n 12 "$out/record.txt"
	assert_true "the recording has a waveform" test -s "$out/record.svg"
	echo "   waveform: $out/record.svg"
fi

if [ -x "$panel" ] && command -v Xvfb >/dev/null && command -v xwd >/dev/null; then
	say "uledsd-panel draws every LED as a lamp" \
		"(the board without these LEDs shows them on its screen instead)"
	export DISPLAY=:98 GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1 GDK_BACKEND=x11
	bg_start Xvfb :98 -screen 0 900x420x24 -nolisten tcp
	wait_for 30 eval 'xdotool getdisplaygeometry >/dev/null 2>&1'
	sbus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 --nosyslog)
	export DBUS_SESSION_BUS_ADDRESS=${sbus%%$'\n'*}
	_lib_bg_pids+=("${sbus##*$'\n'}")
	bg_start "$panel" --system --debug-geometry >"$work/geometry.log" 2>"$out/panel.log"
	if wait_for 90 grep -q 'lamps=3' "$work/geometry.log"; then
		uledsctl set demo:amber:status on >/dev/null
		_lib_sleep 2
		win=$(xdotool search --onlyvisible --name '^LEDs$' | head -n1)
		xwd -silent -id "$win" | convert xwd:- "$out/panel.png"
		pass "panel screenshot: $out/panel.png"
	else
		fail "the panel did not draw its lamps (see $out/panel.log)"
	fi
fi

say "Stop uledsd: its LEDs go away with it" \
	"(under systemd they survive a crash: the fd store keeps them)"
kill -TERM "$uledsd_pid"
wait "$uledsd_pid"
assert_true "no demo LED left" sh -c "! ls $L | grep -q '^demo:'"
printf '\nPictures and logs of this run: %s\n' "$out"
