#!/bin/bash
# SPDX-License-Identifier: MIT
# gpio.share: the lines of one chip in one line request (consumer "uledsd"), the changes of
# one wakeup in one ioctl; a reload that removes or changes one frees its line and keeps the
# others driven; a busy line sends its chip's group back to a request a line; blink, on_exit,
# a chip unplugged and back, with shared requests.
. "$(dirname "$0")/lib.sh"

uledsd=$(uledsd_gpio_bin) || exit 1
work=$(mktemp -d)
mkdir -p "$work/conf"
L=/sys/class/leds

gpiosim_new shA 8 S0 S1 S2 S3 S4 S5 S6 S7 || exit 1
A=$GPIOSIM_CHIP
gpiosim_new shB 4 T0 T1 T2 T3 || exit 1
B=$GPIOSIM_CHIP

# shB line 2 is held by another program: shB's group cannot be requested.
bg_start gpioset -c "$B" 2=1
holder=$BG_PID
wait_for 5 sh -c "gpioinfo -c $B 2 | grep -q gpioset" || fail "gpioset did not take $B line 2"

led() { # NAME CHIP LINE [KEY=VALUE...]
	printf '[%s]\nmax_brightness = 1\nbackends = gpio\ngpio.chip = %s\ngpio.line = %s\ngpio.share = yes\n' \
		"$1" "$2" "$3"
	shift 3
	for kv in "$@"; do printf '%s\n' "$kv"; done
	echo
}
conf() {
	for i in 0 1 2 3; do led "s:a$i" shA "S$i"; done
	led s:blink shA S4
	led s:keep shA S5 "default_brightness = 1" "gpio.on_exit = keep"
	led s:off shA S6 "default_brightness = 1"
	for i in 0 1 2; do led "s:b$i" shB "T$i"; done
}
conf >"$work/conf/10-share.conf"
# One on the same chip that does not share.
printf '[s:own]\nmax_brightness = 1\nbackends = gpio\ngpio.chip = shA\ngpio.line = S7\n' \
	>"$work/conf/20-own.conf"

bg_start "$uledsd" --bus none --config-dir "$work/conf" --log-level debug 2>"$work/log"
pid=$BG_PID
assert_true "uledsd is ready" wait_for 10 grep -q "Ready:" "$work/log" || { cat "$work/log"; exit 1; }
sim_path shA
sim_path shB

# --- one request for the chip's shared lines -----------------------------------------------
assert_true "the shared lines are attached before READY (the log says so first)" \
	sh -c "grep -n -e 's:a0: gpio: attached' -e 'Ready:' $work/log | head -1 | grep -q attached"
assert_true "s:a0: attached, sharing one request with the 6 other lines of its chip" \
	grep -q "s:a0: gpio: attached to line 'S0' (0) on $A (a request shared by 7 lines)" "$work/log"
for o in 0 1 2 3 4 5 6; do
	assert_true "gpioinfo: $A line $o is held by 'uledsd'" \
		sh -c "gpioinfo -c $A $o | grep -q '\"uledsd\"'"
done
assert_true "gpioinfo: the line that does not share is named after its LED" \
	sh -c "gpioinfo -c $A 7 | grep -q '\"s:own\"'"
expect_line shA 5 1 "s:keep starts on (default_brightness in the shared request)"
expect_line shA 6 1 "s:off starts on"

# --- the lines follow their LEDs; a wakeup's changes are one ioctl ---------------------------
for o in 0 1 2 3; do
	set_b "s:a$o" 1
	expect_line shA "$o" 1 "s:a$o: on drives its shared line high"
done
set_b s:a2 0
expect_line shA 2 0 "s:a2: off drives its line low, the others stay"
expect_line shA 3 1 "s:a3 is still on"

# uledsd stopped, four LEDs change, uledsd goes on: one read of four records, one write.
strace -f -e trace=ioctl -p "$pid" -o "$work/strace" 2>/dev/null &
strace_pid=$!
# Attached before the changes, however long that takes (the sanitizer boot on a loaded host
# took more than the second this once waited for).
assert_true "strace is attached to uledsd" \
	wait_for 30 sh -c "grep -q 'TracerPid:[[:space:]]*[1-9]' /proc/$pid/status"
kill -STOP "$pid"
for o in 0 1 2 3; do set_b "s:a$o" 0; done
kill -CONT "$pid"
for o in 0 1 2 3; do expect_line shA "$o" 0 "s:a$o: off after the batch"; done
sleep 0.5
kill "$strace_pid"
wait "$strace_pid" 2>/dev/null
sets=$(grep -cE 'GPIO_V2_LINE_SET_VALUES_IOCTL|0xb4, 0xf,' "$work/strace")
assert_eq 1 "$sets" "four changes of one wakeup reach the chip in one GPIO_V2_LINE_SET_VALUES ioctl"

# --- a busy line: the chip's group falls back to a request a line -----------------------------
assert_true "s:b2: the busy line names its holder" \
	grep -q "s:b2: gpio: line 'T2' (2) on $B is used by 'gpioset'" "$work/log"
for o in 0 1; do
	assert_true "s:b$o: attached with a request of its own after the group failed" \
		grep -q "s:b$o: gpio: attached to line 'T$o' ($o) on $B\.$" "$work/log"
	assert_true "gpioinfo: $B line $o is named after s:b$o" \
		sh -c "gpioinfo -c $B $o | grep -q '\"s:b$o\"'"
done
set_b s:b1 1
expect_line shB 1 1 "s:b1 follows its LED on its own request"
kill "$holder"
assert_true "s:b2 takes its line once gpioset lets go" \
	wait_for 5 grep -q "s:b2: gpio: attached to line 'T2' (2) on $B" "$work/log"

# --- blink offloaded onto a shared line ---------------------------------------------------------
echo timer >"$L/s:blink/trigger"
echo 100 >"$L/s:blink/delay_on"
echo 100 >"$L/s:blink/delay_off"
seen=""
for _ in $(seq 40); do
	seen="$seen$(line_val shA 4)"
	sleep 0.025
done
assert_true "s:blink: the timer toggles its shared line ($seen)" \
	sh -c "echo $seen | grep -q 0 && echo $seen | grep -q 1"

# --- reload: one removed, one changed; the rest are requested again, still driven --------------
set_b s:a1 1
expect_line shA 1 1 "s:a1 on before the reload"
{
	for i in 1 2 3; do led "s:a$i" shA "S$i"; done
	led s:blink shA S4
	led s:keep shA S5 "default_brightness = 1" "gpio.on_exit = keep"
	led s:off shA S6 "default_brightness = 1" "gpio.active_low = yes"
	for i in 0 1 2; do led "s:b$i" shB "T$i"; done
} >"$work/conf/10-share.conf"
kill -HUP "$pid"
assert_true "the reload is done" wait_for 10 grep -q "Reloaded:" "$work/log"
assert_true "s:a0 is gone" test ! -e "$L/s:a0"
assert_true "s:a0's line is free after the reload" \
	wait_for 3 sh -c "! gpioinfo -c $A 0 | grep -q '\"uledsd\"'"
expect_line shA 1 1 "s:a1 still drives its line after the others were requested again"
expect_line shA 5 1 "s:keep still drives its line"
expect_line shA 6 0 "s:off, now active-low and on, drives its line low"
set_b s:a3 1
expect_line shA 3 1 "s:a3 follows its LED after the reload"
set_b s:a3 0
expect_line shA 3 0 "s:a3 off"

# --- the chip unplugged and back: the shared lines attach again, together --------------------
gpiosim_live shA 0
assert_true "s:a1 waits for its chip" \
	wait_for 5 grep -q "s:a1: gpio: waiting for $A (removed)" "$work/log"
before=$(grep -c "(a request shared by" "$work/log")
gpiosim_live shA 1
sim_path shA
assert_true "back: the shared lines are requested together again" \
	wait_for 5 sh -c "[ \$(grep -c '(a request shared by' $work/log) -gt $before ]"
expect_line shA 1 1 "s:a1 drives its line again after the chip came back"
expect_line shA 5 1 "s:keep drives its line again"

# --- stop: on_exit = off turns the shared line off, keep leaves it -------------------------------
set_b s:a1 1
expect_line shA 1 1 "s:a1 on before the stop"
# Counted in the debug log, not with strace: LeakSanitizer (the sanitizer boot) cannot run
# at exit under ptrace.
requests=$(grep -c "gpio: requesting .* shared lines" "$work/log")
assert_true "the debug log names the shared requests made so far ($requests)" [ "$requests" -gt 0 ]
kill -TERM "$pid"
wait_for 10 sh -c "! kill -0 $pid 2>/dev/null" || fail "uledsd did not exit on SIGTERM"
assert_eq "$requests" "$(grep -c "gpio: requesting .* shared lines" "$work/log")" \
	"stop: no line is requested again while the members of a shared request leave"
assert_true "stop: s:a1 (on_exit = off) was driven off before release" \
	grep -q "s:a1: gpio: line 1 on $A driven off before release (on_exit = off)" "$work/log"
assert_true "stop: s:keep (on_exit = keep) was not" \
	sh -c "! grep -q 's:keep: gpio: line 5 on $A driven off' $work/log"
assert_true "stop: every shared line is released" sh -c "! gpioinfo -c $A | grep -q '\"uledsd\"'"
assert_true "no error in the log" sh -c "! grep -qiE 'failed to set|sanitizer|leak' $work/log"
if [ "${ULEDSD_TEST_VERBOSE:-}" ]; then cat "$work/log"; fi
exit 0
