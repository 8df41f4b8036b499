#!/bin/bash
# SPDX-License-Identifier: MIT
# gpio backend and chip hotplug: a chip absent at start, a chip removed and re-added
# (gpio-sim live=0/1), a line past the chip's end; the LED stays and is re-driven.
. "$(dirname "$0")/lib.sh"

uledsd=$(uledsd_gpio_bin) || exit 1
work=$(mktemp -d)
mkdir -p "$work/conf"
L=/sys/class/leds

# A chip present from the start (its number and name are stable while it stays live).
gpiosim_new hpA 4 HA_L0 HA_L1 || exit 1
A=$GPIOSIM_CHIP

cat >"$work/conf/10-hotplug.conf" <<C
# by label, chip not there yet
[h:late-label]
max_brightness = 1
backends = gpio
gpio.chip = hpLate
gpio.line = 1

# by line name on any chip, chip not there yet
[h:late-name]
max_brightness = 1
backends = gpio
gpio.line = LATE_L0

# a chip that stays: removed and re-added below
[h:stay]
max_brightness = 10
backends = gpio
gpio.chip = hpA
gpio.line = HA_L0

[h:stay-byname]
max_brightness = 1
backends = gpio
gpio.chip = $A
gpio.line = 1

# a chip that is there, an offset past its lines: a runtime error, not a config error
[h:past-end]
max_brightness = 1
backends = gpio
gpio.chip = hpA
gpio.line = 9
C

# The backend state is visible on D-Bus (the LED's Backends property).
start_dbus "$ULEDSD_SOURCE_ROOT/conf/io.uledsd1.conf" || exit 1
# info: the records a user sees (the counts below are about them)
bg_start "$uledsd" --bus system --config-dir "$work/conf" --log-level info 2>"$work/log"
pid=$BG_PID
assert_true "uledsd is ready" wait_for 10 grep -q "Ready:" "$work/log" || { cat "$work/log"; exit 1; }
wait_for 10 grep -q "Serving io.uledsd1 on the system bus" "$work/log" || fail "uledsd is not on the bus"
# state LED: the gpio backend's (ok, state) from D-Bus
state() {
	busctl --system --no-pager get-property io.uledsd1 "/io/uledsd1/led/$(sed 's/:/_3a/g; s/-/_2d/g' <<<"$1")" \
		io.uledsd1.LED Backends 2>&1 | sed "s/\\\\'/'/g" # busctl escapes ' as \'
}
state_is() { [ "$(state "$1")" = "$2" ]; }
expect_state() { # LED EXPECTED WHAT
	local got
	wait_for 3 state_is "$1" "$2" || true
	got=$(state "$1")
	assert_eq "$2" "$got" "$3"
}

sim_path hpA

# absent at start: the LEDs exist, the state is logged once
for led in h:late-label h:late-name h:past-end; do
	assert_true "$led exists although its GPIO is missing" test -d "$L/$led"
done
assert_true "missing chip by label: logged" \
	grep -q "h:late-label: gpio: waiting for a chip labelled 'hpLate'" "$work/log"
assert_true "missing line name: logged" \
	grep -q "h:late-name: gpio: waiting for a chip with a line named 'LATE_L0'" "$work/log"
assert_true "offset past the chip's lines: logged with LED, line and chip" \
	grep -q "h:past-end: gpio: line offset 9 is past the 4 lines of $A (0-3)" "$work/log"

expect_state h:late-label "a(sbs) 1 \"gpio\" false \"waiting for a chip labelled 'hpLate'\"" \
	"D-Bus: the state of a missing chip"
expect_state h:past-end "a(sbs) 1 \"gpio\" false \"line offset 9 is past the 4 lines of $A (0-3)\"" \
	"D-Bus: the state of an offset past the chip's end"

# another chip appearing is a retry that fails alike: no new log line
gpiosim_new hpDecoy 1 DECOY || exit 1
sleep 0.3

# set the brightness while the chip is away; it is driven once the chip comes
set_b h:late-label 1
set_b h:late-name 1
gpiosim_new hpLate 2 LATE_L0 LATE_L1 || exit 1
sim_path hpLate
expect_line hpLate 1 1 "late chip by label: attached and driven to the current brightness"
expect_line hpLate 0 1 "late chip by line name: attached and driven to the current brightness"
assert_true "late chip: attach logged" \
	wait_for 2 grep -q "h:late-label: gpio: attached to line 1 on $GPIOSIM_CHIP" "$work/log"
expect_state h:late-label "a(sbs) 1 \"gpio\" true \"attached to line 1 on $GPIOSIM_CHIP\"" \
	"D-Bus: attached once the chip came"
set_b h:late-label 0
expect_line hpLate 1 0 "late chip: follows the LED afterwards"
assert_eq 1 "$(grep -c "h:late-label: gpio: waiting for a chip labelled" "$work/log")" \
	"waiting for a chip: logged once although another chip appeared"

# hot removal and re-add of a chip in use
set_b h:stay 10
set_b h:stay-byname 1
expect_line hpA 0 1 "h:stay on before removal"
expect_line hpA 1 1 "h:stay-byname on before removal"
gpiosim_live hpA 0
assert_true "removal logged" wait_for 3 grep -q "h:stay: gpio: waiting for $A (removed)" "$work/log"
assert_true "the LED stays while its chip is away" test -d "$L/h:stay"
expect_state h:stay "a(sbs) 1 \"gpio\" false \"waiting for $A (removed)\"" \
	"D-Bus: the state of a removed chip"
# the LED changes while the chip is away; the new value must be what is driven later
set_b h:stay 3
set_b h:stay-byname 0
sleep 0.3
gpiosim_live hpA 1
sim_path hpA
assert_eq "$A" "$(gpiosim_chip hpA)" "the re-added chip got its old name (uledsd let go of it)"
expect_line hpA 0 1 "re-added chip: h:stay driven to its current brightness (3 of 10: on)"
expect_line hpA 1 0 "re-added chip: h:stay-byname driven to its current brightness (off)"
assert_true "re-attach logged" wait_for 2 grep -q "h:stay: gpio: $A is back, line driven on again" "$work/log"
set_b h:stay 0
expect_line hpA 0 0 "re-added chip: follows the LED afterwards"

# a second cycle, and the chip staying away while the LED changes a lot
gpiosim_live hpA 0
# The kernel reuses the chip's number only once uledsd let go of the old chip.
wait_for 5 sh -c "[ \$(grep -c 'h:stay-byname: gpio: waiting for $A (removed)' $work/log) = 2 ]" ||
	fail "second removal not noticed"
for i in 1 0 5 0 7; do set_b h:stay $i; done
gpiosim_live hpA 1
sim_path hpA
expect_line hpA 0 1 "second re-add: driven to the last brightness"
expect_line hpA 1 0 "second re-add: h:stay-byname (by chip name) is back too"
assert_true "uledsd is still running" kill -0 "$pid"
assert_eq 2 "$(grep -c "h:stay: gpio: waiting" "$work/log")" \
	"each removal is logged once (no second 'waiting' record when the chip list is rescanned)"
assert_eq "" "$(grep "h:past-end: gpio:" "$work/log" | uniq -d)" \
	"an LED whose line is past the chip's end logs it only when its state changes"

# the removal of one chip leaves LEDs on other chips alone
set_b h:late-name 0
expect_line hpLate 0 0 "LED on another chip still follows"

kill -TERM "$pid"
wait_for 10 sh -c "! kill -0 $pid 2>/dev/null" || fail "uledsd did not exit on SIGTERM"
if [ "${ULEDSD_TEST_VERBOSE:-}" ]; then cat "$work/log"; fi
exit 0
