#!/bin/bash
# SPDX-License-Identifier: MIT
# gpio backend and reload: an unchanged attachment is never released (no glitch), a changed
# one moves cleanly, a removed LED lets its line go, a line can pass from one LED to another.
. "$(dirname "$0")/lib.sh"

uledsd=$(uledsd_gpio_bin) || exit 1
work=$(mktemp -d)
mkdir -p "$work/conf"
L=/sys/class/leds

gpiosim_new rlA 8 R0 R1 R2 R3 R4 R5 R6 R7 || exit 1
A=$GPIOSIM_CHIP

led() { # NAME LINE [EXTRA KEY=VALUE lines...]
	printf '[%s]\nmax_brightness = 1\ndefault_brightness = 1\nbackends = %s\ngpio.chip = rlA\ngpio.line = %s\n' \
		"$1" "${B:-gpio}" "$2"
	shift 2
	for kv in "$@"; do printf '%s\n' "$kv"; done
	echo
}

{
	led r:same R0
	led r:updated R1
	led r:move R2
	led r:removed R4
	led r:inverted R7
	led r:giver R5
} >"$work/conf/10-gpio.conf"
# A file that does not change at all.
led r:other-file 6 >"$work/conf/20-other.conf"

bg_start "$uledsd" --bus none --config-dir "$work/conf" --log-level debug 2>"$work/log"
pid=$BG_PID
assert_true "uledsd is ready" wait_for 10 grep -q "Ready:" "$work/log" || { cat "$work/log"; exit 1; }

sim_path rlA
rl() { expect_line rlA "$@"; }

reloads=0
reload() {
	reloads=$((reloads + 1))
	kill -HUP "$pid"
	wait_for 10 sh -c "[ \$(grep -c 'Reloaded:' $work/log) -ge $reloads ]" ||
		fail "reload $reloads did not finish"
}

for o in 0 1 2 4 5 6 7; do rl $o 1 "line $o on before the reloads"; done

# Every request and release on the lines of the kept LEDs, while the reloads run.
gpionotify --banner -c "$A" -F '%e %o' 0 1 6 >"$work/notify" 2>&1 &
notify=$!
_lib_bg_pids+=("$notify")
wait_for 5 grep -q . "$work/notify" || fail "gpionotify did not start"

# 1: nothing changed
reload
# 2: changes around the kept lines: r:updated gets a second backend, r:move another line,
#    r:removed goes (freeing R4), r:inverted turns active-low, r:giver moves to R4 and
#    r:taker takes r:giver's old R5 (defined first, so it asks before r:giver let go).
{
	led r:taker R5
	led r:same R0
	B="gpio, log" led r:updated R1 "log.max_rate = 0"
	led r:move R3
	led r:inverted R7 "gpio.active_low = yes"
	led r:giver R4
} >"$work/conf/10-gpio.conf"
reload
# 3: the same again
reload

kill "$notify"
wait "$notify" 2>/dev/null
assert_eq "" "$(grep -E '^[12] ' "$work/notify")" \
	"lines of unchanged LEDs were never requested or released during 3 reloads"
rl 0 1 "r:same still drives its line"
rl 1 1 "r:updated (a backend added) still drives its line"
rl 6 1 "r:other-file still drives its line"
assert_true "r:updated has its new log backend" \
	sh -c "echo 0 >$L/r:updated/brightness && sleep 0.3 && grep -q 'r:updated: brightness 0/1' $work/log"
rl 1 0 "r:updated: the kept gpio attachment still follows the LED"

rl 2 0 "r:move: its old line is released"
rl 3 1 "r:move: its new line is driven to the LED's brightness"
assert_true "r:removed: the LED is gone" test ! -e "$L/r:removed"
rl 4 1 "r:giver: took the line r:removed let go (and is driven on)"
rl 7 0 "r:inverted: now active-low, on drives the line low"
rl 5 1 "r:taker: got the line r:giver released, driven on"
assert_true "r:taker is attached" grep -q "r:taker: gpio: attached to line 'R5' (5) on $A" "$work/log"
assert_true "gpioinfo: line 5 now belongs to r:taker" sh -c "gpioinfo -c $A 5 | grep -q '\"r:taker\"'"
echo 0 >"$L/r:taker/brightness"
rl 5 0 "r:taker follows its LED"

kill -TERM "$pid"
wait_for 10 sh -c "! kill -0 $pid 2>/dev/null" || fail "uledsd did not exit on SIGTERM"
if [ "${ULEDSD_TEST_VERBOSE:-}" ]; then cat "$work/log" "$work/notify" "$work/conf"/*; fi
exit 0
