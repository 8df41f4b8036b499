#!/bin/bash
# SPDX-License-Identifier: MIT
# Multicolour LEDs end to end: color = rgb and multi_intensity make a kernel multicolour LED;
# writes of multi_intensity and brightness through sysfs reach three gpio-sim lines (each its
# channel's share of the brightness, an intensity-only change included); D-Bus Color follows
# with PropertiesChanged; SetColor and uledsctl color set it (same access rule as
# SetBrightness); uledsctl status and list show the channels (text and --json); a reload
# changes the colour in place; --check-config names every bad key.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_gpio_bin) || exit 1
ctl=$ULEDSD_BUILD_ROOT/ctl/uledsctl
work=$(mktemp -d)
mkdir -p "$work/conf"
L=/sys/class/leds
M=mc:rgb:status
P=/io/uledsd1/led/mc_3argb_3astatus
B=(busctl --system --no-pager)

gpiosim_new simMC 4 MC_R MC_G MC_B MC_X || exit 1
chip=$GPIOSIM_CHIP

write_conf() { # $1: multi_intensity of the LED
	cat >"$work/conf/10-mc.conf" <<C
[$M]
max_brightness = 100
color = rgb
multi_intensity = $1
backends = gpio, dbus
gpio.lines = MC_R MC_G MC_B
dbus.max_rate = 1000

[mc:plain]
backends = gpio
gpio.chip = $chip
gpio.line = 3
C
}
write_conf "100 0 0"
lines() { echo "$(gpiosim_value simMC 0)$(gpiosim_value simMC 1)$(gpiosim_value simMC 2)"; }
lines_are() { [ "$(lines)" = "$1" ]; }
expect_lines() { # EXPECTED WHAT
	wait_for 5 lines_are "$1"
	assert_eq "$1" "$(lines)" "$2 (lines R G B)"
}

start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$uledsd" --bus system --config-dir "$work/conf" 2>"$work/log"
pid=$BG_PID
assert_true "the multicolour LED appears" wait_for 10 test -e "$L/$M/multi_intensity"
assert_eq "red green blue" "$(cat "$L/$M/multi_index")" "color = rgb: multi_index"
assert_eq "100 0 0" "$(cat "$L/$M/multi_intensity")" "multi_intensity default applied"
assert_true "the plain LED is there too, not multicolour" \
	sh -c "test -e $L/mc:plain/brightness && ! test -e $L/mc:plain/multi_intensity"
assert_true "uledsd is on the bus" wait_for 15 "$ctl" get "$M" ||
	{ "${B[@]}" list; cat "$work/log"; }

expect_lines 000 "brightness 0: all lines off"
echo 100 >"$L/$M/brightness"
expect_lines 100 "brightness 100, intensities 100 0 0: red only"
# An intensity-only change (same brightness) is a change.
echo "0 100 100" >"$L/$M/multi_intensity"
expect_lines 011 "intensity-only change to 0 100 100: green and blue"
# A channel's brightness is brightness * intensity / max: 50 * 1 / 100 = 0 stays off.
echo "100 1 2" >"$L/$M/multi_intensity"
echo 50 >"$L/$M/brightness"
expect_lines 101 "brightness 50, intensities 100 1 2: shares 50 0 1 (brightness x intensity / max)"
echo 0 >"$L/$M/brightness"
expect_lines 000 "brightness 0 darkens every channel"
echo 1 >"$L/mc:plain/brightness"
assert_true "the plain LED's line follows" wait_for 5 sh -c "[ \$(cat /sys/devices/platform/$GPIOSIM_DEV/$chip/sim_gpio3/value) = 1 ]"

# --- D-Bus Color ---------------------------------------------------------------------------
"${B[@]}" --timeout=5 get-property io.uledsd1 /io/uledsd1 io.uledsd1.Manager Version ||
	{ top -b -n1 | head -15; }
assert_eq 'a(su) 3 "red" 100 "green" 1 "blue" 2' \
	"$("${B[@]}" get-property io.uledsd1 "$P" io.uledsd1.LED Color)" "Color property"
assert_eq 'a(su) 0' "$("${B[@]}" get-property io.uledsd1 /io/uledsd1/led/mc_3aplain io.uledsd1.LED Color)" \
	"a plain LED's Color is empty"
dbus-monitor --system "type='signal',interface='org.freedesktop.DBus.Properties',path='$P'" \
	>"$work/mon" 2>/dev/null &
mon=$!
# dbus-monitor is ready at an unknown moment (a loaded guest): write until a change shows.
for i in 1 2 3 4 5 6 7 8 9 10; do
	echo "7 8 $((90 + i))" >"$L/$M/multi_intensity"
	wait_for 2 grep -q "uint32 $((90 + i))" "$work/mon" && break
done
kill "$mon" 2>/dev/null
assert_true "PropertiesChanged carries Color after a multi_intensity write" \
	sh -c "grep -q 'string \"Color\"' $work/mon && grep -q 'uint32 7' $work/mon && grep -q 'uint32 8' $work/mon"

# SetColor as root through uledsctl, and back through its print form.
echo 100 >"$L/$M/brightness"
"$ctl" color "$M" 0 100 50% >"$work/ctl.out" 2>&1
assert_eq 0 "$?" "uledsctl color NAME 0 100 50% succeeds ($(cat "$work/ctl.out"))"
assert_eq "0 100 50" "$(cat "$L/$M/multi_intensity")" "uledsctl color wrote multi_intensity"
expect_lines 011 "after uledsctl color 0 100 50%"
assert_eq "$(printf 'red 0\ngreen 100\nblue 50')" "$("$ctl" color "$M" 2>&1)" "uledsctl color NAME prints the channels"
# status and list show the channels (text and --json); a plain LED shows none.
"$ctl" status "$M" mc:plain >"$work/status.out" 2>&1
assert_true "uledsctl status shows the channels ($(grep Color "$work/status.out"))" \
	grep -qx '       Color: red 0, green 100, blue 50' "$work/status.out"
assert_eq 1 "$(grep -c 'Color:' "$work/status.out")" "uledsctl status: no Color line for the plain LED"
"$ctl" list >"$work/list.out" 2>&1
assert_true "uledsctl list: a COLOR column with the channels ($(grep "^$M " "$work/list.out"))" \
	grep -Eq "^$M +100/100 +red:0 green:100 blue:50 +none +gpio, dbus$" "$work/list.out"
assert_true "uledsctl list: '-' in COLOR for the plain LED ($(grep '^mc:plain ' "$work/list.out"))" \
	grep -Eq '^mc:plain +1/255 +- +none +gpio$' "$work/list.out"
# On a terminal the lamp mixes the channels: green x 1 + blue x 0.5 (uledsctl's terminal
# colours (40,220,60) and (60,110,255)), scaled to a peak of 255.
TERM=xterm script -q -c "$ctl --no-pager list" /dev/null </dev/null >"$work/list.tty"
assert_true "uledsctl list on a terminal: the lamp in the mixed colour ($(grep -a "$M" "$work/list.tty" | cat -v))" \
	grep -aq $'\033\[38;2;65;255;174m●' "$work/list.tty"
j=$("$ctl" list --json)
assert_eq 'red=0 green=100 blue=50' \
	"$(jq -r ".[] | select(.name == \"$M\") | [.color[] | \"\(.name)=\(.intensity)\"] | join(\" \")" <<<"$j")" \
	"uledsctl list --json: color, an array of name and intensity"
assert_eq 0 "$(jq '.[] | select(.name == "mc:plain") | .color | length' <<<"$j")" \
	"uledsctl list --json: a plain LED's color is empty"
assert_eq 50 "$("$ctl" status --json "$M" | jq '.leds[0].color[2].intensity')" \
	"uledsctl status --json: the blue channel's intensity"
"$ctl" color "$M" 1 2 >"$work/ctl.out" 2>&1
assert_eq 1 "$?" "uledsctl color with too few values fails"
assert_true "and says how many channels there are ($(cat "$work/ctl.out"))" \
	grep -q "has 3 colour channels; give 3 intensities" "$work/ctl.out"
"$ctl" color "$M" 1 2 300 >"$work/ctl.out" 2>&1
assert_eq 1 "$?" "uledsctl color above max_brightness fails"
"$ctl" color mc:plain 1 2 3 >"$work/ctl.out" 2>&1
assert_true "SetColor on a plain LED: NotMulticolor ($(cat "$work/ctl.out"))" \
	grep -q "has no colour channels" "$work/ctl.out"
e=$(setpriv --reuid=65534 --regid=65534 --clear-groups dbus-send --system --print-reply \
	--dest=io.uledsd1 "$P" io.uledsd1.LED.SetColor array:uint32:1,2,3 2>&1 >/dev/null)
assert_true "nobody's SetColor is refused like SetBrightness ($e)" grep -q 'AccessDenied' <<<"$e"
assert_eq "0 100 50" "$(cat "$L/$M/multi_intensity")" "a refused SetColor changed nothing"

# --- reload: a new multi_intensity is applied in place (same LED, lines follow) -------------
ino=$(stat -c %i "$L/$M/brightness")
write_conf "0 0 100"
kill -HUP "$pid"
assert_true "reload applies the new multi_intensity" \
	wait_for 10 sh -c "[ \"\$(cat '$L/$M/multi_intensity')\" = '0 0 100' ]"
expect_lines 001 "after the reload: blue only"
assert_eq "$ino" "$(stat -c %i "$L/$M/brightness")" "a colour change keeps the LED (no re-registration)"

# --- exit: the lines are released dark --------------------------------------------------------
kill -TERM "$pid"
wait "$pid" 2>/dev/null
expect_lines 000 "lines driven off at exit"

# --- --check-config: each bad key is an error with FILE:LINE ---------------------------------
mkdir "$work/bad"
cat >"$work/bad/50-bad.conf" <<'C'
[b:name]
color = red mauve

[b:count]
color = rgb
multi_intensity = 1 2

[b:range]
max_brightness = 9
color = rgb
multi_intensity = 1 2 30

[b:nocolor]
multi_intensity = 1

[b:lines]
color = rgb
backends = gpio
gpio.lines = R G

[b:single]
color = rgb
backends = gpio
gpio.line = R

[b:plainlines]
backends = gpio
gpio.lines = R G B

[b:good]
color = red green
multi_intensity = 255 0
backends = gpio
gpio.lines = GOOD_R GOOD_G
C
"$uledsd" --check-config --config-dir "$work/bad" >"$work/check.out" 2>"$work/check.err"
assert_eq 1 "$?" "--check-config fails on bad colour settings"
f=$work/bad/50-bad.conf
check() { assert_true "--check-config: $1" grep -qF "$2" "$work/check.err"; }
check "unknown colour" "$f:2: color: 'mauve' is not a colour the kernel knows"
check "intensity count" "$f:6: multi_intensity has 2 values but color has 3 channels"
check "intensity range" "$f:11: multi_intensity: 30 (channel 2, blue) is above max_brightness = 9"
check "intensity without color" "$f:14: multi_intensity needs a multicolour LED"
check "line count" "$f:18: gpio.lines has 2 lines but the LED has 3 colour channels"
check "gpio.line on a multicolour LED" "$f:23: the LED is multicolour (color = ...): give the gpio backend one line per channel"
check "gpio.lines on a plain LED" "$f:27: gpio.lines needs a multicolour LED"
assert_true "--check-config counts the errors" grep -q "1 LED valid, 7 errors" "$work/check.out" ||
	cat "$work/check.out" "$work/check.err"
if [ "${ULEDSD_TEST_VERBOSE:-}" ] || [ "$_lib_failed" != 0 ]; then cat "$work/log"; fi
exit 0
