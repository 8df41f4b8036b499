#!/bin/bash
# SPDX-License-Identifier: MIT
# The pwm backend on the test PWM chip (pwm-test.ko): duty cycles for 0/25/50/100 % with the
# linear and the cie1931 curve, polarity, a multicolour LED on three channels, a PWM exported
# by someone else (an error that says what to do), the chip removed and added again (uevents),
# a crash whose exports the next start takes back (records under /run/uledsd/pwm), a clean
# exit that disables and unexports, and --check-config errors for every bad key.
# Runs on 6.12 (pwm-duty-curves-hotplug-busy) and on 6.1 (kmod-6.1-abi-torture-core-pwm),
# whose PWM core refuses a period of 0 and a duty cycle above the period even while disabled:
# the first start sets up fresh exports (period 0), the restart after the crash shrinks the
# period below the duty cycle the crash left.
. "$(dirname "$0")/lib.sh"

uledsd=$(uledsd_bin) || exit 1
work=$(mktemp -d)
mkdir -p "$work/conf"
L=/sys/class/leds
DEV=uledsd-test-pwm.0
DRV=/sys/bus/platform/drivers/uledsd-test-pwm

insmod "$ULEDSD_KMOD_DIR/pwm-test.ko" || { fail "insmod pwm-test.ko"; exit 1; }
chip_dir() { echo /sys/class/pwm/"$(ls /sys/bus/platform/devices/$DEV/pwm/)"; }
C=$(chip_dir)
CHIP=${C##*/}
assert_eq 8 "$(cat "$C/npwm")" "the test chip has 8 PWMs"
pwm() { cat "$(chip_dir)/pwm$1/$2" 2>/dev/null; } # CHANNEL ATTR
duty_is() { [ "$(pwm "$1" duty_cycle)" = "$2" ]; }
expect_duty() { # CHANNEL DUTY WHAT
	wait_for 5 duty_is "$1" "$2"
	assert_eq "$2" "$(pwm "$1" duty_cycle)" "$3 (pwm$1 duty_cycle)"
}

# What the pwm backend's write order is for: a fresh export has period 0, and 6.1 refuses a
# duty cycle before the period and a period below the duty cycle (checked on 6.1 only, where
# the order matters).
refused() { ! (echo "$1" >"$2") 2>/dev/null; } # VALUE FILE: the write fails
echo 6 >"$C/export"
assert_eq 0 "$(pwm 6 period)" "a fresh export starts with period 0"
case $(uname -r) in 6.1.*)
	assert_true "6.1 refuses a duty cycle while the period is 0" refused 1000 "$C/pwm6/duty_cycle"
	echo 2000 >"$C/pwm6/period" && echo 1000 >"$C/pwm6/duty_cycle"
	assert_eq 1000 "$(pwm 6 duty_cycle)" "6.1 takes a duty cycle once the period is set"
	assert_true "6.1 refuses a period below the duty cycle" refused 500 "$C/pwm6/period"
	;;
esac
echo 6 >"$C/unexport"

# Someone else's export, before uledsd starts.
echo 7 >"$C/export"

cat >"$work/conf/10-pwm.conf" <<C
[pwm:lin]
max_brightness = 100
backends = pwm
pwm.chip = $DEV
pwm.channel = 0
pwm.period = 1ms

[pwm:cie]
max_brightness = 100
backends = pwm
pwm.chip = $CHIP
pwm.channel = 1
pwm.period = 1000000
pwm.curve = cie1931
pwm.polarity = inversed

[pwm:rgb]
color = rgb
multi_intensity = 255 128 0
backends = pwm
pwm.chip = $DEV
pwm.channels = 2 3 4
pwm.period = 100us

[pwm:busy]
backends = pwm
pwm.chip = $DEV
pwm.channel = 7
C

start() {
	bg_start "$uledsd" --bus none --config-dir "$work/conf" 2>>"$work/log"
	pid=$BG_PID
	assert_true "uledsd exports pwm0 ($1)" wait_for 10 test -e "$(chip_dir)/pwm0/enable"
}
start "first start"
assert_eq 1000000 "$(pwm 0 period)" "pwm.period = 1ms"
assert_eq 1 "$(pwm 0 enable)" "the PWM is enabled"
assert_eq normal "$(pwm 0 polarity)" "default polarity"
assert_eq inversed "$(pwm 1 polarity)" "pwm.polarity = inversed"
assert_eq 100000 "$(pwm 2 period)" "pwm.period = 100us"
assert_true "export records under /run/uledsd/pwm" test -e "/run/uledsd/pwm/$DEV:0" -a -e "/run/uledsd/pwm/$DEV:4"

for b in 25:250000:44155 50:500000:184187 100:1000000:1000000 0:0:0; do
	IFS=: read -r v lin cie <<<"$b"
	echo "$v" >"$L/pwm:lin/brightness"
	echo "$v" >"$L/pwm:cie/brightness"
	expect_duty 0 "$lin" "linear, brightness $v %"
	expect_duty 1 "$cie" "cie1931, brightness $v %"
done

# Multicolour: each channel gets brightness x intensity / max of the period.
echo 255 >"$L/pwm:rgb/brightness"
expect_duty 2 100000 "red at 255/255"
expect_duty 3 50196 "green at 128/255"
expect_duty 4 0 "blue at 0"
echo "0 255 51" >"$L/pwm:rgb/multi_intensity"
expect_duty 2 0 "red after multi_intensity 0 255 51"
expect_duty 3 100000 "green after multi_intensity 0 255 51"
expect_duty 4 20000 "blue after multi_intensity 0 255 51"

assert_true "a PWM exported by someone else is an error that says what to do" \
	grep -q "pwm:busy: pwm: PWM 7 of $DEV is exported by someone else.*unexport it (echo 7 > .*/unexport) or pick another channel" "$work/log"
assert_eq 0 "$(pwm 7 enable)" "uledsd left the foreign PWM alone"

# --- the chip goes and comes back: uevents, the state and the duty cycle follow -------------
echo 50 >"$L/pwm:lin/brightness"
expect_duty 0 500000 "before the chip goes"
echo "$DEV" >"$DRV/unbind"
assert_true "the removal is noticed" wait_for 5 grep -q "pwm:lin: pwm: waiting for PWM chip $DEV (removed)" "$work/log"
echo 75 >"$L/pwm:lin/brightness"
echo "$DEV" >"$DRV/bind"
assert_true "the chip is back and pwm0 exported again" wait_for 10 test -e "$(chip_dir)/pwm0/enable"
expect_duty 0 750000 "the duty cycle of the brightness set while the chip was away"
expect_duty 3 100000 "the multicolour LED is back too"
# The chip's removal took the foreign export of PWM 7 with it: the channel is free now.
assert_true "pwm:busy takes PWM 7 once the re-added chip has it free" \
	wait_for 5 grep -q "pwm:busy: pwm: attached" "$work/log"

# --- a crash: the exports stay, the next start takes them back as its own -------------------
# The restart comes with a shorter period for pwm:lin, 100 us, below the 750 us duty cycle the
# crash left: the duty cycle must go to 0 before the period is written (6.1 refuses it else).
kill -KILL "$pid"
wait "$pid" 2>/dev/null
assert_true "a crash leaves the export" test -e "$(chip_dir)/pwm0/enable"
assert_eq 750000 "$(pwm 0 duty_cycle)" "the crash leaves the duty cycle"
sed -i '0,/^pwm.period = 1ms$/s//pwm.period = 100us/' "$work/conf/10-pwm.conf"
mv "$work/log" "$work/log.first"
start "after a crash"
assert_true "the restart took pwm0 back (no foreign-export error)" \
	wait_for 5 sh -c "grep -q 'pwm:lin: pwm: attached' '$work/log' && ! grep -q 'PWM 0 of $DEV is exported by someone else' '$work/log'"
assert_eq 100000 "$(pwm 0 period)" "the period shrank below the old duty cycle"
assert_true "no set-up error after the period shrank" sh -c "! grep -q 'failed to set up' '$work/log'"
echo 40 >"$L/pwm:lin/brightness"
expect_duty 0 40000 "40 % of the new 100 us period"
assert_eq 1 "$(pwm 0 enable)" "pwm0 is enabled with the new period"

# --- a clean exit disables and unexports -----------------------------------------------------
kill -TERM "$pid"
wait "$pid" 2>/dev/null
assert_true "pwm0 is unexported at exit" sh -c "! test -e $(chip_dir)/pwm0"
assert_true "pwm4 is unexported at exit" sh -c "! test -e $(chip_dir)/pwm4"
assert_true "the records are gone" sh -c "! ls /run/uledsd/pwm/$DEV:* 2>/dev/null | grep -q ."
assert_true "pwm7 (pwm:busy's since the chip came back) is unexported at exit" sh -c "! test -e $(chip_dir)/pwm7"

# --- --check-config --------------------------------------------------------------------------
mkdir "$work/bad"
cat >"$work/bad/50-bad.conf" <<'C'
[b:period]
backends = pwm
pwm.chip = pwmchip0
pwm.channel = 0
pwm.period = fast

[b:polarity]
backends = pwm
pwm.chip = pwmchip0
pwm.channel = 1
pwm.polarity = upside-down

[b:curve]
backends = pwm
pwm.chip = pwmchip0
pwm.channel = 2
pwm.curve = log

[b:channel]
backends = pwm
pwm.chip = pwmchip0
pwm.channel = x

[b:nochip]
backends = pwm
pwm.channel = 3

[b:count]
color = rgb
backends = pwm
pwm.chip = pwmchip0
pwm.channels = 4 5

[b:key]
backends = pwm
pwm.chip = pwmchip0
pwm.channel = 6
pwm.frequency = 1000
C
"$uledsd" --check-config --config-dir "$work/bad" >"$work/check.out" 2>"$work/check.err"
assert_eq 1 "$?" "--check-config fails on bad pwm settings"
f=$work/bad/50-bad.conf
check() { assert_true "--check-config: $1" grep -qF "$2" "$work/check.err"; }
check "bad period" "$f:5: pwm.period = 'fast' is not valid"
check "bad polarity" "$f:11: pwm.polarity = 'upside-down' is not valid: use normal"
check "bad curve" "$f:17: pwm.curve = 'log' is not valid: use linear"
check "bad channel" "$f:22: pwm.channel: 'x' is not a channel number"
check "missing chip" "$f:25: the pwm backend needs pwm.chip"
check "channel count" "$f:30: pwm.channels has 2 channels but the LED has 3 colours"
check "unknown key" "$f:38: unknown key 'pwm.frequency'"
assert_true "--check-config counts the errors" grep -q "0 LEDs valid, 7 errors" "$work/check.out" ||
	cat "$work/check.out" "$work/check.err"
if [ "${ULEDSD_TEST_VERBOSE:-}" ]; then cat "$work/log.first" "$work/log"; fi
exit 0
