#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd re-executes itself in place (SIGUSR2 and D-Bus Reexecute): same PID, the binary now
# at its path (a replaced file, as after a package upgrade), and every LED keeps its sysfs
# node (inode), trigger, trigger attributes and brightness; a GPIO line follows again; a
# trigger set at run time stays; a plain user may not ask for it.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
built=$(uledsd_bin) || exit 1
work=$(mktemp -d)
L=/sys/class/leds
B=(busctl --system --no-pager)
LEDS=(re:steady re:timer re:free re:gpio)

gpiosim_new reexec 4 RE_L0 || exit 1
sim_path reexec
# The daemon runs from a copy, which the test replaces as dpkg does (a new file renamed over
# the old one): the re-execution must run the new file.
mkdir -p "$work/sbin"
cp "$built" "$work/sbin/uledsd"
cat >"$work/10-reexec.conf" <<C
[re:steady]
max_brightness = 255
default_brightness = 40
backends = log, dbus

[re:timer]
max_brightness = 1
trigger = timer
trigger.delay_on = 100
trigger.delay_off = 700

[re:free]
max_brightness = 1

[re:gpio]
max_brightness = 1
backends = gpio
gpio.chip = $GPIOSIM_LABEL
gpio.line = RE_L0
C

start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$work/sbin/uledsd" --bus system --config-dir "$work" 2>"$work/log"
pid=$BG_PID
serving() { "${B[@]}" list | grep -q '^io.uledsd1 '; }
all_there() { local l; for l in "${LEDS[@]}"; do [ -e "$L/$l" ] || return 1; done; }
ready() { serving && all_there; }
assert_true "uledsd created its LEDs and serves io.uledsd1" wait_for 20 ready || {
	cat "$work/log"
	exit 1
}

# State set at run time, which a restart from the configuration would not give back.
echo 123 >"$L/re:steady/brightness"
echo heartbeat >"$L/re:free/trigger"
echo 1 >"$L/re:gpio/brightness"
assert_true "the GPIO line follows re:gpio before" wait_for 5 line_is reexec 0 1

trigger_of() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$L/$1/trigger"; }
snapshot() {
	local l
	for l in "${LEDS[@]}"; do
		printf '%s inode=%s trigger=%s max=%s\n' "$l" "$(stat -L -c %i "$L/$l")" \
			"$(trigger_of "$l")" "$(cat "$L/$l/max_brightness")"
	done
	echo "re:steady brightness=$(cat "$L/re:steady/brightness")"
	echo "re:gpio brightness=$(cat "$L/re:gpio/brightness")"
	echo "re:timer delay_on=$(cat "$L/re:timer/delay_on") delay_off=$(cat "$L/re:timer/delay_off")"
}
snapshot >"$work/before"
# A watcher that notices any LED vanishing, even for a moment.
(
	while :; do
		for l in "${LEDS[@]}"; do [ -e "$L/$l" ] || echo "$l vanished" >>"$work/vanished"; done
		_lib_sleep 0.01
	done
) &
_lib_bg_pids+=("$!")

# check_after WHAT N: the N-th re-execution is done and changed nothing.
check_after() {
	local what=$1 n=$2
	assert_true "$what: uledsd re-executed (log)" wait_for 20 sh -c "[ \$(grep -c 'Re-executed: adopting' '$work/log') -ge $n ]" ||
		{ cat "$work/log"; return 1; }
	assert_true "$what: the name io.uledsd1 is back" wait_for 20 serving
	assert_true "$what: the same process (PID $pid) runs on" kill -0 "$pid"
	assert_eq "$work/sbin/uledsd" "$(readlink "/proc/$pid/exe")" \
		"$what: the process runs the file now at its path, not the replaced one"
	snapshot >"$work/after"
	assert_eq "$(cat "$work/before")" "$(cat "$work/after")" \
		"$what: every LED's sysfs inode, trigger, max_brightness, brightness and timer delays"
	assert_true "$what: the GPIO line follows re:gpio again" wait_for 5 line_is reexec 0 1
	assert_true "$what: no LED vanished at any moment" test ! -e "$work/vanished"
	assert_eq 4 "$(grep 'Re-executing' "$work/log" | tail -n1 | sed -n 's/.* with \([0-9]*\) LEDs.*/\1/p')" \
		"$what: all four LEDs were handed over"
}

# 1. SIGUSR2, after the binary was replaced the way dpkg does it.
cp "$built" "$work/sbin/uledsd.new"
mv "$work/sbin/uledsd.new" "$work/sbin/uledsd"
case $(readlink "/proc/$pid/exe") in
*"(deleted)") pass "the running binary was replaced on disk" ;;
*) fail "the running binary was not replaced: $(readlink "/proc/$pid/exe")" ;;
esac
kill -USR2 "$pid"
check_after "SIGUSR2" 1

# 2. D-Bus Reexecute: refused for a plain user, done for root.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if nobody "${B[@]}" call io.uledsd1 /io/uledsd1 io.uledsd1.Manager Reexecute >"$work/nobody" 2>&1; then
	fail "a plain user's Reexecute was accepted"
else
	assert_true "a plain user's Reexecute is refused ($(head -c 300 "$work/nobody"))" \
		grep -qi 'denied' "$work/nobody"
fi
owner1=$("${B[@]}" call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s io.uledsd1)
assert_true "D-Bus Reexecute returns" "${B[@]}" call io.uledsd1 /io/uledsd1 io.uledsd1.Manager Reexecute
check_after "D-Bus Reexecute" 2
owner2=$("${B[@]}" call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s io.uledsd1)
[ "$owner1" != "$owner2" ] && pass "the new binary owns io.uledsd1 ($owner2, was $owner1)" ||
	fail "io.uledsd1's owner did not change ($owner1): did the re-execution happen?"

# Still working after two re-executions: a change reaches the backends and D-Bus.
echo 0 >"$L/re:gpio/brightness"
assert_true "a later change still reaches the GPIO line" wait_for 5 line_is reexec 0 0
echo 200 >"$L/re:steady/brightness"
assert_true "a later change still reaches D-Bus" wait_for 5 sh -c \
	"busctl --system get-property io.uledsd1 /io/uledsd1/led/re_3asteady io.uledsd1.LED Brightness | grep -qx 'u 200'"
# 3. The configuration changed before a re-execution: the uleds group hands every LED over,
# so the new process must let go itself of what it no longer configures (no fd store here).
sed -i '/^\[re:free\]/,/^$/d' "$work/10-reexec.conf"
sed -i '/^\[re:timer\]/,/^$/s/^max_brightness = 1$/max_brightness = 3/' "$work/10-reexec.conf"
kill -USR2 "$pid"
assert_true "re-executed a third time" wait_for 20 sh -c "[ \$(grep -c 'Re-executed: adopting' '$work/log') -ge 3 ]"
assert_true "an LED no longer configured is gone after the re-execution" wait_for 5 test ! -e "$L/re:free"
assert_eq 3 "$(cat "$L/re:timer/max_brightness" 2>&1)" "an LED with a new max_brightness is created again"
assert_true "the others are still there" test -e "$L/re:steady" -a -e "$L/re:gpio"
kill "$pid"
assert_true "uledsd exits on SIGTERM and its LEDs go" wait_for 10 sh -c "[ ! -e $L/re:steady ]"
grep -E 'Re-execut|adopt|error|rror' "$work/log" | head -n 20
