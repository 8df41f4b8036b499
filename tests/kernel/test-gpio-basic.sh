#!/bin/bash
# SPDX-License-Identifier: MIT
# gpio backend on gpio-sim: line by name/offset, chip by path/name/label, active-low,
# threshold, several LEDs on one chip, a busy line, a timer trigger, on_exit, --check-config.
. "$(dirname "$0")/lib.sh"

uledsd=$(uledsd_gpio_bin) || exit 1
work=$(mktemp -d)
mkdir -p "$work/conf"
L=/sys/class/leds

gpiosim_new simA 8 A_L0 A_L1 A_L2 A_L3 A_L4 A_L5 A_L6 A_L7 || exit 1
A=$GPIOSIM_CHIP
gpiosim_new simB 4 B_L0 B_L1 B_L2 B_L3 || exit 1
B=$GPIOSIM_CHIP
# Lines that must read 1 only when driven, and one whose pull shows a released line.
gpiosim_set_pull simB 2 pull-up

# A line held by another program before uledsd starts.
bg_start gpioset -c "$A" 6=1
holder=$BG_PID
wait_for 5 sh -c "gpioinfo -c $A 6 | grep -q gpioset" || fail "gpioset did not take $A line 6"

cat >"$work/conf/10-gpio.conf" <<C
[g:name]
max_brightness = 1
backends = gpio
gpio.line = A_L0

[g:path-offset]
max_brightness = 1
backends = gpio
gpio.chip = /dev/$A
gpio.line = 1

[g:chipname-offset]
max_brightness = 1
backends = gpio
gpio.chip = $A
gpio.line = 2

[g:label-name]
max_brightness = 1
backends = gpio
gpio.chip = simA
gpio.line = A_L3

[g:active-low]
max_brightness = 1
backends = gpio
gpio.chip = simA
gpio.line = A_L4
gpio.active_low = yes

[g:threshold]
max_brightness = 255
backends = gpio, log
log.max_rate = 0
gpio.line = A_L5
gpio.threshold = 128

[g:busy]
max_brightness = 1
backends = gpio
gpio.chip = simA
gpio.line = 6

[g:timer]
max_brightness = 1
trigger = timer
trigger.delay_on = 100
trigger.delay_off = 100
backends = gpio
gpio.line = B_L0

[g:exit-off]
max_brightness = 1
default_brightness = 1
backends = gpio
gpio.line = B_L1

[g:exit-keep]
max_brightness = 1
default_brightness = 0
backends = gpio
gpio.line = B_L2
gpio.on_exit = keep

[g:drive-bias]
max_brightness = 1
backends = gpio
gpio.chip = simA
gpio.line = A_L7
gpio.drive = open-source
gpio.bias = pull-down

[g:a-very-long-led-name-beyond-31-bytes]
max_brightness = 1
backends = gpio
gpio.chip = simB
gpio.line = 3
C

bg_start "$uledsd" --bus none --config-dir "$work/conf" --log-level debug 2>"$work/log"
pid=$BG_PID
assert_true "uledsd is ready" wait_for 10 grep -q "Ready:" "$work/log" || { cat "$work/log"; exit 1; }

sim_path simA
sim_path simB

# Initial values: brightness 0 → inactive, active-low → physically high.
expect_line simA 0 0 "line by name starts off"
expect_line simA 4 1 "active-low line starts physically high (off)"

# value follows brightness: by line name (all chips), path+offset, chip name+offset, label+name
for led in g:name:0 g:path-offset:1 g:chipname-offset:2 g:label-name:3; do
	name=${led%:*} off=${led##*:}
	set_b "$name" 1
	expect_line simA "$off" 1 "$name: brightness 1 drives $A line $off high"
	set_b "$name" 0
	expect_line simA "$off" 0 "$name: brightness 0 drives $A line $off low"
done
assert_true "gpioinfo shows the LED name as consumer" \
	sh -c "gpioinfo -c $A 0 | grep -q '\"g:name\"'"
assert_true "the consumer is the LED name cut to 31 bytes" \
	sh -c "gpioinfo -c $B 3 | grep -q '\"g:a-very-long-led-name-beyond-3\"'"

assert_true "drive and bias reach the kernel (gpioinfo: open-source, pull-down)" \
	sh -c "gpioinfo -c $A 7 | grep -q 'output drive=open-source bias=pull-down'"

# active-low inverts
set_b g:active-low 1
expect_line simA 4 0 "active-low: on drives the line low"
set_b g:active-low 0
expect_line simA 4 1 "active-low: off drives the line high"

# threshold 128 of 255
set_b g:threshold 127
wait_for 2 grep -q "g:threshold: brightness 127/255" "$work/log"
expect_line simA 5 0 "threshold: 127 < 128 keeps the line off"
set_b g:threshold 128
expect_line simA 5 1 "threshold: 128 turns the line on"
set_b g:threshold 255
expect_line simA 5 1 "threshold: 255 keeps it on"
set_b g:threshold 1
expect_line simA 5 0 "threshold: 1 turns it off"

# two LEDs on one chip at once: the earlier ones still follow independently
set_b g:name 1
set_b g:label-name 1
expect_line simA 0 1 "two LEDs on one chip: first on"
expect_line simA 3 1 "two LEDs on one chip: second on"
expect_line simA 2 0 "two LEDs on one chip: a third stays off"
set_b g:name 0
expect_line simA 0 0 "two LEDs on one chip: first off"
expect_line simA 3 1 "two LEDs on one chip: second still on"

# the busy line: a clear error naming LED, line, chip and holder; the LED still exists
assert_true "busy line: error names the line, chip and its consumer" \
	grep -q "g:busy: gpio: line 6 on $A is used by 'gpioset'" "$work/log"
assert_eq 1 "$(grep -c "g:busy: gpio: line 6 on $A is used by" "$work/log")" "busy line: logged once"
assert_true "busy line: the LED exists anyway" test -d "$L/g:busy"
set_b g:busy 0
sleep 0.2
assert_eq 1 "$(line_val simA 6)" "busy line: gpioset's value is untouched"
# when the holder lets go, uledsd takes the line with the LED's value
set_b g:busy 1
kill "$holder"
expect_line simA 6 1 "busy line: taken over with the LED's value once gpioset exits"
assert_true "busy line: then attached" \
	wait_for 2 grep -q "g:busy: gpio: attached to line 6 on $A" "$work/log"
set_b g:busy 0
expect_line simA 6 0 "busy line: follows the LED after the takeover"

# a timer trigger toggles the line
seen0=0 seen1=0
for _ in $(seq 40); do
	read -r x <"${simpath[simB]}/sim_gpio0/value"
	case $x in 0) seen0=1 ;; 1) seen1=1 ;; esac
	_lib_sleep 0.03
done
assert_eq "1 1" "$seen0 $seen1" "timer trigger: the line was seen both low and high"

# on_exit: off drives an on line inactive before release; keep releases it as it is
expect_line simB 1 1 "on_exit=off LED starts on (default_brightness = 1)"
set_b g:exit-keep 1
expect_line simB 2 1 "on_exit=keep LED on"
kill -TERM "$pid"
wait_for 10 sh -c "! kill -0 $pid 2>/dev/null" || fail "uledsd did not exit on SIGTERM"
expect_line simB 1 0 "on_exit=off: the line reads off after uledsd stopped"
assert_true "on_exit=off: driven inactive before the release" \
	grep -q "g:exit-off: gpio: line 1 on $B driven off before release" "$work/log"
assert_true "on_exit=keep: not driven off, only released" \
	sh -c "! grep -q 'g:exit-keep: gpio: line 2 on $B driven off' $work/log && grep -q 'g:exit-keep: gpio: releasing line 2' $work/log"
assert_eq 1 "$(line_val simB 2)" "on_exit=keep: the released line shows gpio-sim's pull-up"
assert_true "every line is released at exit" sh -c "! gpioinfo -c $A | grep -q '\"g:'"

# --check-config: what is knowable without hardware is a FILE:LINE error
mkdir "$work/bad"
cat >"$work/bad/50-bad.conf" <<'C'
[b:enum]
backends = gpio
gpio.line = X1
gpio.drive = push-me

[b:bool]
backends = gpio
gpio.line = X2
gpio.active_low = maybe

[b:threshold]
backends = gpio
gpio.line = X3
gpio.threshold = half

[b:zero]
backends = gpio
gpio.line = X4
gpio.threshold = 0

[b:bias]
backends = gpio
gpio.line = X5
gpio.bias = up

[b:exit]
backends = gpio
gpio.line = X6
gpio.on_exit = sometimes

[b:noline]
backends = gpio
gpio.chip = gpiochip0

[b:offset-nochip]
backends = gpio
gpio.line = 4

[b:first]
backends = gpio
gpio.chip = /dev/gpiochip7
gpio.line = 3

[b:second]
backends = gpio
gpio.chip = gpiochip7
gpio.line = 3

[b:good]
backends = gpio
gpio.chip = gpiochip7
gpio.line = 03
gpio.active_low = On
C
"$uledsd" --check-config --config-dir "$work/bad" >"$work/check.out" 2>"$work/check.err"
rc=$?
assert_eq 1 "$rc" "--check-config fails on bad gpio settings"
f=$work/bad/50-bad.conf
check() { assert_true "--check-config: $1" grep -qF "$2" "$work/check.err"; }
check "bad drive" "$f:4: gpio.drive = 'push-me' is not valid: use push-pull (the default), open-drain or open-source."
check "bad bool" "$f:9: gpio.active_low = 'maybe' is not a boolean: use yes or no"
check "non-numeric threshold" "$f:14: gpio.threshold = 'half' is not valid: give a whole number from 1"
check "zero threshold" "$f:19: gpio.threshold = '0' is not valid"
check "bad bias" "$f:24: gpio.bias = 'up' is not valid: use as-is (the default), disabled, pull-up or pull-down."
check "bad on_exit" "$f:29: gpio.on_exit = 'sometimes' is not valid: use off"
check "missing line" "$f:32: the gpio backend needs gpio.line"
check "offset without chip" "$f:36: gpio.line = 4 is an offset, which needs gpio.chip"
check "duplicate chip+line (path and name are one chip)" \
	"$f:45: [b:second] uses GPIO line 3 on gpiochip7, which [b:first] at $f:40 already uses"
check "an offset with a leading zero is the same line" \
	"$f:50: [b:good] uses GPIO line 3 on gpiochip7, which [b:first] at $f:40 already uses"
assert_true "--check-config counts the errors" grep -q "1 LED valid, 10 errors" "$work/check.out" ||
	cat "$work/check.out" "$work/check.err"
if [ "${ULEDSD_TEST_VERBOSE:-}" ]; then cat "$work/log" "$work/check.err"; fi
exit 0
