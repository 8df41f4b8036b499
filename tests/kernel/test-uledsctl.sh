#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsctl against a real uledsd on a real system bus: every command in text and --json, every
# exit code, monitor following sysfs writes (into a file and on a pseudo-terminal), uledsd
# going away and coming back, reload errors, bash completion.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_gpio_bin) || exit 1
ctl=$ULEDSD_BUILD_ROOT/ctl/uledsctl
work=$(mktemp -d)
conf=$work/conf
L=/sys/class/leds
mkdir "$conf"

cat >"$conf/10-ctl.conf" <<'C'
[ctltest:green:sig]
max_brightness = 255
backends = dbus, log
dbus.max_rate = 1000

[ctltest:red:quiet]
max_brightness = 1
backends = log

[ctltest:amber:blink]
trigger = timer
trigger.delay_on = 100
trigger.delay_off = 900
backends = log

[ctltest:blue:late]
max_brightness = 1
backends = gpio
gpio.chip = ctlLate
gpio.line = LATE0
C

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# ctl ARGS...: runs uledsctl; $out, $err and $rc hold what it printed and its exit status.
ctl() {
	out=$("$ctl" "$@" 2>"$work/err")
	rc=$?
	err=$(cat "$work/err")
}
# expect RC WHAT ARGS...: uledsctl ARGS exits with RC.
expect() {
	local want=$1 what=$2
	shift 2
	ctl "$@"
	assert_eq "$want" "$rc" "$what: exit status of 'uledsctl $*' (stderr: $err)"
}
# one_line WHAT: stderr is exactly one line (one message a failure).
one_line() { assert_eq 1 "$(grep -c . <<<"$err")" "$1: one stderr line, got '$err'"; }
brightness() { cat "$L/$1/brightness"; }
trigger_of() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$L/$1/trigger"; }

# --- no bus at all, then a bus without uledsd: exit 3 ------------------------------------
rm -rf /run/dbus
expect 3 "no system bus" list
assert_true "no bus: the message says so ($err)" grep -q "Cannot connect to the system bus" <<<"$err"
one_line "no bus"
start_dbus "$src/conf/io.uledsd1.conf" || exit 1
expect 3 "uledsd not running" get ctltest:green:sig
assert_true "not running: the message says how to start it ($err)" \
	grep -q "uledsd is not running.*systemctl start uledsd" <<<"$err"
one_line "not running"
expect 3 "reload without uledsd" reload
expect 3 "--address of the system bus, uledsd not running" \
	--address unix:path=/run/dbus/system_bus_socket status

# monitor waits for uledsd: started before it, into a file (not a terminal).
"$ctl" monitor >"$work/mon" 2>"$work/mon.err" &
mon=$!
_lib_bg_pids+=("$mon")
assert_true "monitor says uledsd is not running yet" \
	wait_for 10 grep -q "uledsd is not running; waiting for it to start" "$work/mon"
# monitor --json alongside: the same events, an object a line (checked after the text ones).
"$ctl" monitor --json >"$work/mon.json" 2>"$work/mon-json.err" &
_lib_bg_pids+=("$!")
assert_true "monitor --json: uledsd-not-running first" \
	wait_for 10 sh -c "head -n 1 '$work/mon.json' | jq -e '.event == \"uledsd-not-running\" and (has(\"name\") | not)'"

bg_start "$uledsd" --bus system --config-dir "$conf" 2>"$work/log"
uledsd_pid=$BG_PID
assert_true "uledsctl reaches uledsd" wait_for 15 "$ctl" get ctltest:red:quiet

# --- usage: exit 2, --help, --version ----------------------------------------------------
expect 2 "no command"
expect 2 "unknown command" frobnicate
expect 2 "unknown option" list --frob
expect 2 "missing argument" set ctltest:green:sig
expect 2 "too many arguments" get a b
expect 2 "--json on get" get --json ctltest:green:sig
expect 2 "--json on record" record ctltest:green:sig --json
assert_true "--json on record: points to --format json ($err)" grep -q "record writes JSON with --format json" <<<"$err"
expect 2 "bad --bus" --bus nowhere list
expect 2 "trigger with a word that is not ATTR=VALUE" trigger ctltest:green:sig timer junk
one_line "usage"
expect 0 "--version" --version
assert_true "--version prints the version ($out)" grep -Eq '^uledsctl [0-9]+\.[0-9]+' <<<"$out"
expect 0 "--help" --help
expect 2 "-p on list" list -p Brightness
assert_true "-p on list: it is for show ($err)" grep -q -- "-p/--property and --value are for show, not 'list'" <<<"$err"
for cmd in list status show get set trigger blink heartbeat pattern monitor create remove reload; do
	expect 0 "$cmd --help" "$cmd" --help
	assert_true "$cmd --help shows its usage" grep -q "^uledsctl $cmd" <<<"$out"
done

# --- list --------------------------------------------------------------------------------
echo 5 >"$L/ctltest:green:sig/brightness"
assert_true "get follows a sysfs write" wait_for 5 sh -c "[ \"\$('$ctl' get ctltest:green:sig)\" = 5 ]"
expect 0 "list" list
assert_eq 4 "$(wc -l <<<"$out")" "list: one line an LED, no header when not on a terminal"
assert_true "list: name, brightness/max, trigger, backends ($out)" \
	grep -Eq '^ctltest:green:sig +5/255 +none +dbus, log$' <<<"$out"
assert_true "list: the timer LED shows its trigger" grep -Eq '^ctltest:amber:blink +(0|1|255)/255 +timer +log$' <<<"$out"
assert_true "list: a failing backend shows its state" \
	grep -Eq "^ctltest:blue:late +0/1 +none +gpio \(waiting for a chip labelled 'ctlLate'\)$" <<<"$out"
assert_eq "ctltest:amber:blink ctltest:blue:late ctltest:green:sig ctltest:red:quiet" \
	"$(awk '{ print $1 }' <<<"$out" | xargs)" "list: sorted by name"
expect 0 "list --json" list --json
assert_eq 4 "$(jq length <<<"$out")" "list --json: 4 LEDs"
assert_eq '5 255 "none" false' \
	"$(jq -r '.[] | select(.name == "ctltest:green:sig") | "\(.brightness) \(.max_brightness) \(.trigger | tojson) \(.transient)"' <<<"$out")" \
	"list --json: brightness, max, trigger, transient"
assert_eq 'dbus true attached, at most 1000 signals/s|log true attached' \
	"$(jq -r '[.[] | select(.name == "ctltest:green:sig") | .backends[] | "\(.name) \(.ok) \(.state)"] | join("|")' <<<"$out")" \
	"list --json: backends with name, ok, state"
assert_eq false "$(jq '.[] | select(.name == "ctltest:blue:late") | .backends[0].ok' <<<"$out")" \
	"list --json: the waiting gpio backend is not ok"
assert_eq /io/uledsd1/led/ctltest_3ared_3aquiet "$(jq -r '.[] | select(.name == "ctltest:red:quiet") | .path' <<<"$out")" \
	"list --json: the object path"
nobody "$ctl" list >/dev/null
assert_eq 0 "$?" "anyone may list"

# --- status ------------------------------------------------------------------------------
expect 0 "status" status
assert_true "status: version, bus and LED count ($(head -1 <<<"$out"))" \
	grep -Eq '^uledsd [0-9.]+ on the system bus: 4 LEDs$' <<<"$out"
assert_true "status: an Errors line" grep -q '^Errors: ' <<<"$out"
assert_true "status: every LED in detail" test "$(grep -c '^. ctltest:' <<<"$out")" = 4
assert_true "status: brightness with percentage" grep -q '^  Brightness: 5/255 (2%)$' <<<"$out"
assert_true "status: backends with their state" grep -q "^    Backends: gpio: waiting for a chip labelled 'ctlLate'$" <<<"$out"
assert_true "status: a second backend aligned under the first" grep -q "^              log: attached$" <<<"$out"
expect 0 "status NAME" status ctltest:red:quiet
assert_eq 1 "$(grep -c '^. ctltest:' <<<"$out")" "status NAME: that LED only"
expect 4 "status of an unknown LED" status ctltest:red:quiet no:such:led
assert_true "status unknown: the known one is still shown" grep -q 'ctltest:red:quiet' <<<"$out"
assert_true "status unknown: says what to do ($err)" grep -q "No LED named 'no:such:led'.*uledsctl list" <<<"$err"
expect 0 "status --json" status --json
assert_eq "4 4 system" "$(jq -r '"\(.led_count) \(.leds | length) \(.bus)"' <<<"$out")" "status --json: counts and bus"
assert_true "status --json: the version" jq -e '.version | test("^[0-9]+\\.[0-9]+")' <<<"$out"
assert_eq "[]" "$(jq -c .errors <<<"$out")" "status --json: LoadErrors of a clean start is an empty array"
expect 0 "status NAME --json" status --json ctltest:amber:blink
assert_eq timer "$(jq -r '.leds[0].trigger' <<<"$out")" "status NAME --json: that LED"

# --- get, set ----------------------------------------------------------------------------
expect 0 "get" get ctltest:green:sig
assert_eq 5 "$out" "get prints the number alone"
expect 4 "get of an unknown LED" get no:such:led
assert_true "get unknown: says what to do ($err)" grep -q "No LED named 'no:such:led' is managed by uledsd; 'uledsctl list'" <<<"$err"
one_line "get unknown"
expect 0 "set a number" set ctltest:green:sig 100
assert_eq 100 "$(brightness ctltest:green:sig)" "set 100 reaches sysfs"
expect 0 "set on" set ctltest:green:sig on
assert_eq 255 "$(brightness ctltest:green:sig)" "set on is max_brightness"
expect 0 "set 50%" set ctltest:green:sig 50%
assert_eq 128 "$(brightness ctltest:green:sig)" "set 50% of 255"
expect 0 "set off" set ctltest:green:sig off
assert_eq 0 "$(brightness ctltest:green:sig)" "set off"
expect 0 "set on, on/off LED" set ctltest:red:quiet on
assert_eq 1 "$(brightness ctltest:red:quiet)" "set on of a max 1 LED"
expect 1 "set out of range" set ctltest:red:quiet 2
assert_true "out of range: says the range ($err)" grep -q "2 is out of range for LED 'ctltest:red:quiet': use 0 to 1" <<<"$err"
one_line "out of range"
expect 1 "set 101%" set ctltest:green:sig 101%
expect 1 "set not a value" set ctltest:green:sig bright
assert_true "not a value: says the forms ($err)" grep -q "'bright' is not a brightness: use a number from 0 to 255, on, off, toggle, a percentage" <<<"$err"
expect 4 "set unknown LED (exit 4: no such LED)" set no:such:led 1
# Issue 31: steps, toggle, globs, -q, --no-legend.
expect 0 "set 100" set ctltest:green:sig 100
expect 0 "set +10%" set ctltest:green:sig +10%
assert_eq 126 "$(brightness ctltest:green:sig)" "+10% of 255 from 100"
assert_eq "ctltest:green:sig 126/255" "$out" "a step prints the new value"
expect 0 "set -1 (a value, not an option)" set ctltest:green:sig -1
assert_eq 125 "$(brightness ctltest:green:sig)" "-1 from 126"
expect 0 "set +500: kept at max" set -q ctltest:green:sig +500
assert_eq 255 "$(brightness ctltest:green:sig)" "a step stops at max_brightness"
assert_eq "" "$out" "-q: nothing printed"
expect 0 "set toggle" set ctltest:green:sig toggle
assert_eq 0 "$(brightness ctltest:green:sig)" "toggle of a lit LED: off"
expect 0 "set toggle again" set ctltest:green:sig toggle
assert_eq 255 "$(brightness ctltest:green:sig)" "toggle of an off LED: max"
expect 0 "set a glob" set 'ctltest:*:sig' 3
assert_eq 3 "$(brightness ctltest:green:sig)" "the glob reached its LED"
expect 4 "set a glob that matches nothing" set 'nomatch:*' on
assert_true "no match: says so ($err)" grep -q "No LED matches 'nomatch:\*'" <<<"$err"
TERM=dumb script -q -e -c "$ctl list --no-pager" /dev/null >"$work/legend" 2>&1
assert_true "list on a terminal: a header" grep -q "BRIGHTNESS" "$work/legend"
TERM=dumb script -q -e -c "$ctl list --no-pager --no-legend" /dev/null >"$work/nolegend" 2>&1
assert_true "list --no-legend on a terminal: no header ($(head -n1 "$work/nolegend"))" \
	sh -c "grep -q ctltest:green:sig '$work/nolegend' && ! grep -q BRIGHTNESS '$work/nolegend'"
expect 0 "set off" set ctltest:green:sig off
ctl_nobody() {
	out=$(nobody "$ctl" "$@" 2>"$work/err")
	rc=$?
	err=$(cat "$work/err")
}
ctl_nobody set ctltest:green:sig 9
assert_eq 1 "$rc" "set as nobody: exit 1"
assert_true "set as nobody: says to use root ($err)" grep -q "Permission denied: 'uledsctl set'.*sudo uledsctl set" <<<"$err"
assert_eq 0 "$(brightness ctltest:green:sig)" "nobody's set changed nothing"

# --- trigger -----------------------------------------------------------------------------
expect 0 "trigger NAME" trigger ctltest:amber:blink
assert_true "trigger NAME marks the selected one ($out)" grep -qx '\* timer' <<<"$out"
assert_true "trigger NAME lists the others" grep -qx '  heartbeat' <<<"$out"
assert_eq 1 "$(grep -c '^\*' <<<"$out")" "one trigger marked"
assert_eq "" "$err" "trigger NAME: nothing on stderr (AvailableTriggers is there)"
assert_eq "$(sed 's/[][]//g' "$L/ctltest:amber:blink/trigger" | xargs -n1 | xargs)" \
	"$(busctl --system get-property io.uledsd1 /io/uledsd1/led/ctltest_3aamber_3ablink io.uledsd1.LED AvailableTriggers | cut -d' ' -f3- | tr -d '"')" \
	"AvailableTriggers: every word of sysfs's trigger file, brackets off"
expect 0 "trigger NAME TRIGGER" trigger ctltest:green:sig heartbeat
assert_eq heartbeat "$(trigger_of ctltest:green:sig)" "trigger heartbeat reaches sysfs"
expect 0 "trigger none" trigger ctltest:green:sig none
assert_eq none "$(trigger_of ctltest:green:sig)" "trigger none"
expect 1 "an unknown trigger" trigger ctltest:green:sig no-such-trigger
assert_true "unknown trigger: no such module, no modprobe advice ($err)" grep -q "no module ledtrig-no-such-trigger exists" <<<"$err"
one_line "unknown trigger"
ctl_nobody trigger ctltest:green:sig timer
assert_eq 1 "$rc" "trigger as nobody: exit 1"
assert_eq none "$(trigger_of ctltest:green:sig)" "nobody's trigger changed nothing"
expect 0 "trigger with attributes" trigger ctltest:green:sig timer delay_on=50 delay_off=150
assert_eq "50 150" "$(cat "$L/ctltest:green:sig/delay_on") $(cat "$L/ctltest:green:sig/delay_off")" \
	"trigger attributes reach sysfs"
expect 0 "attributes of the selected trigger" trigger ctltest:green:sig delay_on=70
assert_eq 70 "$(cat "$L/ctltest:green:sig/delay_on")" "ATTR=VALUE without a trigger"
expect 1 "an attribute the trigger lacks" trigger ctltest:green:sig no_such_attr=1
assert_true "unknown attribute: names the trigger and the attribute ($err)" \
	grep -q "Trigger 'timer' of LED 'ctltest:green:sig' has no attribute 'no_such_attr'" <<<"$err"
one_line "unknown attribute"
expect 1 "a core attribute" trigger ctltest:green:sig brightness=3
assert_true "core attribute: refused as not a trigger attribute ($err)" \
	grep -q "'brightness' is not a trigger attribute" <<<"$err"
expect 1 "a value the kernel refuses" trigger ctltest:green:sig delay_on=abc
assert_true "refused value: names attribute, value and the error ($err)" \
	grep -q "Failed to write 'abc' to .*/delay_on: Invalid argument" <<<"$err"
assert_true "SetTriggerAttributes with '..': InvalidArgs" sh -c \
	"busctl --system call io.uledsd1 /io/uledsd1/led/ctltest_3agreen_3asig io.uledsd1.LED SetTriggerAttributes 'a(ss)' 1 .. 1 2>&1 | grep -q 'not a trigger attribute'"
assert_true "SetTriggerAttributes as nobody: refused" sh -c \
	"! setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call io.uledsd1 /io/uledsd1/led/ctltest_3agreen_3asig io.uledsd1.LED SetTriggerAttributes 'a(ss)' 1 delay_on 5"
assert_eq 70 "$(cat "$L/ctltest:green:sig/delay_on")" "nobody's attribute changed nothing"

# --- blink, heartbeat, pattern (issue 31): the triggers by name ----------------------------
expect 0 "blink NAME ON_MS OFF_MS" blink ctltest:green:sig 40 160
assert_eq "timer 40 160" "$(trigger_of ctltest:green:sig) $(cat "$L/ctltest:green:sig/delay_on") $(cat "$L/ctltest:green:sig/delay_off")" \
	"blink: the timer trigger with those delays"
expect 0 "blink NAME ON_MS" blink ctltest:green:sig 300
assert_eq "300 300" "$(cat "$L/ctltest:green:sig/delay_on") $(cat "$L/ctltest:green:sig/delay_off")" \
	"blink without OFF_MS: as long off as on"
expect 2 "blink with 0 ms" blink ctltest:green:sig 0
assert_true "blink 0: says what a time is ($err)" grep -q "'0' is not a time: ON_MS and OFF_MS are milliseconds" <<<"$err"
one_line "blink 0"
expect 4 "blink of an LED that does not exist" blink ctltest:no:such 100
expect 0 "heartbeat NAME" heartbeat ctltest:green:sig
assert_eq heartbeat "$(trigger_of ctltest:green:sig)" "heartbeat: the heartbeat trigger"
expect 0 "pattern NAME BRIGHTNESS MS..." pattern ctltest:green:sig 0 200 255 0 255 200
assert_eq pattern "$(trigger_of ctltest:green:sig)" "pattern: the pattern trigger"
assert_eq "0 200 255 0 255 200" "$(xargs <"$L/ctltest:green:sig/pattern")" "pattern: its steps reach sysfs"
expect 2 "pattern with an odd number of words" pattern ctltest:green:sig 0 200 255
assert_true "odd pattern: says pairs ($err)" grep -q "A pattern is pairs of BRIGHTNESS MS; 3 words given" <<<"$err"
ctl_nobody blink ctltest:green:sig 100
assert_eq 1 "$rc" "blink as nobody: exit 1"
assert_eq pattern "$(trigger_of ctltest:green:sig)" "nobody's blink changed nothing"
expect 0 "set off stops a pattern" set ctltest:green:sig off
assert_eq none "$(trigger_of ctltest:green:sig)" "set off: no trigger left"
expect 0 "back to none" trigger ctltest:green:sig none

# --- show: the D-Bus properties, as systemctl show prints them ------------------------------
echo 9 >"$L/ctltest:green:sig/brightness"
wait_for 5 sh -c "[ \"\$('$ctl' get ctltest:green:sig)\" = 9 ]"
expect 0 "show NAME" show ctltest:green:sig
for line in Name=ctltest:green:sig Brightness=9 MaxBrightness=255 Trigger=none Transient=no \
	Blink=0:0 "Backends=dbus:yes:attached, at most 1000 signals/s log:yes:attached"; do
	assert_true "show NAME: $line" grep -qxF "$line" <<<"$out"
done
assert_true "show NAME: AvailableTriggers, space-separated" grep -Eq '^AvailableTriggers=none( [a-z0-9-]+)+$' <<<"$out"
expect 0 "show NAME -p A,B --value" show ctltest:green:sig -p MaxBrightness,Brightness --value
assert_eq $'255\n9' "$out" "show -p MaxBrightness,Brightness --value: the values, in -p's order"
expect 0 "show -p repeated" show ctltest:green:sig -p Brightness -p Trigger
assert_eq $'Brightness=9\nTrigger=none' "$out" "show -p A -p B: both"
expect 0 "show without NAME: uledsd's properties" show -p Version --value
assert_true "show -p Version --value: the daemon's version ($out)" grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' <<<"$out"
expect 0 "show two LEDs" show ctltest:green:sig ctltest:red:quiet -p Name
assert_eq $'Name=ctltest:green:sig\n\nName=ctltest:red:quiet' "$out" "show NAME NAME: a blank line between them"
expect 1 "show -p of a property that does not exist" show ctltest:green:sig -p brightness
assert_true "show -p brightness: names it and says what lists them ($err)" \
	grep -q "LED ctltest:green:sig has no property 'brightness'; 'uledsctl show ctltest:green:sig' lists them" <<<"$err"
expect 4 "show of an LED that does not exist" show ctltest:no:such
"$ctl" show ctltest:green:sig ctltest:no:such -p Name >"$work/out" 2>/dev/null
assert_eq 4 "$?" "show of a known LED, then an unknown one: exit 4"
assert_eq 'Name=ctltest:green:sig\n' "$(od -An -c "$work/out" | tr -d ' \n')" \
	"show A unknown: A's line, no blank line before the error"
nobody "$ctl" show ctltest:red:quiet >/dev/null
assert_eq 0 "$?" "anyone may show"

# --- monitor (into a file): the lines follow sysfs -----------------------------------------
assert_true "monitor: uledsd came up" grep -q "uledsd is back: 4 LEDs" "$work/mon"
assert_true "monitor: uledsd's line comes before its LEDs' lines" \
	sh -c "grep -E 'uledsd is back|present:' '$work/mon' | head -1 | grep -q 'uledsd is back'"
assert_true "monitor: every LED present with its state" \
	grep -q "ctltest:blue:late present: brightness 0/1, trigger none, backends gpio: waiting for a chip labelled 'ctlLate' (failing)" "$work/mon"
echo 7 >"$L/ctltest:green:sig/brightness"
assert_true "monitor: a sysfs write to a dbus-backend LED (signal)" \
	wait_for 5 grep -q "ctltest:green:sig brightness 7/255$" "$work/mon"
echo 0 >"$L/ctltest:red:quiet/brightness"
assert_true "monitor: a sysfs write to an LED without the dbus backend (polled)" \
	wait_for 5 grep -q "ctltest:red:quiet brightness 0/1$" "$work/mon"
# Issue 31: a trigger change and an offloaded blink are lines too (blink = offload, the default:
# the brightness stays while the kernel hands the blinking over).
modprobe ledtrig-timer
echo timer >"$L/ctltest:green:sig/trigger"
assert_true "monitor: a trigger change" wait_for 5 grep -q "ctltest:green:sig trigger timer$" "$work/mon"
assert_true "monitor: the offloaded blink ($(grep sig "$work/mon" | tail -n 3 | tr '\n' '|'))" \
	wait_for 5 grep -Eq "ctltest:green:sig blinking 500 ms on, 500 ms off at [0-9]+/255$" "$work/mon"
echo none >"$L/ctltest:green:sig/trigger"
assert_true "monitor: the blink's end" wait_for 5 grep -q "ctltest:green:sig blinking stopped$" "$work/mon"
echo 7 >"$L/ctltest:green:sig/brightness"
gpiosim_new ctlLate 2 LATE0 LATE1
assert_true "monitor: a backend's state change" \
	wait_for 10 grep -q "ctltest:blue:late backends gpio: attached" "$work/mon"
assert_true "monitor lines have a timestamp" grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} ctltest:green:sig brightness' "$work/mon"
assert_true "monitor wrote nothing on stderr" test ! -s "$work/mon.err"
# The same events from monitor --json: every line an object, with the LED's state after it.
jev() { jq -c "select($1)" "$work/mon.json"; }
assert_true "monitor --json: every line is one JSON object" jq -e -s 'length > 10 and all(type == "object")' "$work/mon.json"
assert_true "monitor --json: uledsd-back, then present for each LED" \
	jq -e -s '([.[].event] | index("uledsd-back")) < ([.[].event] | index("present"))' "$work/mon.json"
assert_true "monitor --json: present carries the LED (list --json's fields)" \
	test -n "$(jev '.event == "present" and .name == "ctltest:blue:late" and .led.max_brightness == 1 and .led.backends[0].ok == false')"
assert_true "monitor --json: a brightness event with the new value" \
	test -n "$(jev '.event == "brightness" and .name == "ctltest:green:sig" and .led.brightness == 7')"
assert_true "monitor --json: a polled brightness" \
	test -n "$(jev '.event == "brightness" and .name == "ctltest:red:quiet" and .led.brightness == 0')"
assert_true "monitor --json: the trigger change" \
	test -n "$(jev '.event == "trigger" and .led.trigger == "timer"')"
assert_true "monitor --json: the offloaded blink" \
	test -n "$(jev '.event == "blink" and .led.blink_on_ms == 500 and .led.blink_off_ms == 500')"
assert_true "monitor --json: the backend's state change" \
	test -n "$(jev '.event == "backends" and .name == "ctltest:blue:late" and .led.backends[0].ok')"
assert_true "monitor --json: an ISO 8601 time with milliseconds and zone" \
	jq -e -s 'all(.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}$"))' "$work/mon.json"
assert_true "monitor --json wrote nothing on stderr" test ! -s "$work/mon-json.err"

# monitor NAME: only that LED. Under script(1): a terminal, so the lamp row is drawn.
"$ctl" monitor ctltest:red:quiet >"$work/mon-one" 2>&1 &
mon_one=$!
_lib_bg_pids+=("$mon_one")
TERM=xterm-256color script -f -q -e -c "exec $ctl monitor" "$work/tty" </dev/null >/dev/null 2>&1 &
tty_pid=$!
_lib_bg_pids+=("$tty_pid")
wait_for 10 grep -q "present" "$work/mon-one"
wait_for 10 grep -q "ctltest:red:quiet present" "$work/tty"
echo 1 >"$L/ctltest:red:quiet/brightness"
echo 200 >"$L/ctltest:green:sig/brightness"
assert_true "monitor NAME: its LED" wait_for 5 grep -q "ctltest:red:quiet brightness 1/1$" "$work/mon-one"
assert_true "monitor on a tty: the line" wait_for 5 grep -q "ctltest:green:sig brightness 200/255" "$work/tty"
sleep 0.5
assert_true "monitor NAME: no other LED" sh -c "! grep -q 'ctltest:green' '$work/mon-one'"
assert_true "monitor on a tty: the lamp row is redrawn in place (CR, erase line)" grep -q $'\r\033\[K' "$work/tty"
assert_true "monitor on a tty: a lit red lamp in 24-bit colour" grep -q $'\033\[38;2;255;40;40m●' "$work/tty"
assert_true "monitor on a tty: a green lamp dimmed by brightness" grep -q $'\033\[38;2;[0-9]*;[0-9]*;[0-9]*m◐' "$work/tty"

# --- reload: clean, then with errors; LEDs added and removed show in monitor ------------------
expect 0 "reload of a clean configuration" reload
assert_eq "" "$out" "a clean reload prints nothing"
cat >"$conf/20-more.conf" <<'C'
[ctltest:white:new]
backends = log

[ctltest:bad]
max_brightness = lots
backends = log
C
expect 1 "reload with an error" reload
assert_true "reload prints FILE:LINE: errors ($out)" grep -q "20-more.conf:5: " <<<"$out"
assert_true "reload: one verdict on stderr ($err)" grep -q "The configuration has 1 error (above).*uledsctl reload" <<<"$err"
one_line "reload errors"
assert_true "monitor: an LED added by reload" wait_for 5 grep -q "ctltest:white:new added: brightness 0/255" "$work/mon"
expect 0 "status after a reload with errors" status --json
assert_eq 1 "$(jq '.errors | length' <<<"$out")" "status --json: the reload's error (LoadErrors)"
assert_true "status --json: the error is FILE:LINE: message" jq -e '.errors[0] | test("20-more.conf:5: ")' <<<"$out"
ctl_nobody reload
assert_eq 1 "$rc" "reload as nobody: exit 1"
rm "$conf/20-more.conf"
expect 0 "reload after fixing" reload
assert_true "monitor: an LED removed by reload" wait_for 5 grep -q "ctltest:white:new removed" "$work/mon"
assert_true "monitor --json: added and removed (no led once it is gone)" \
	jq -e -s 'any(.event == "added" and .led.name == "ctltest:white:new") and any(.event == "removed" and .name == "ctltest:white:new" and (has("led") | not))' "$work/mon.json"

# --- transient LEDs: create, remove, their owner, reload ---------------------------------------
expect 0 "create --keep" create ctltest:white:kept --keep --max 1 --trigger timer delay_on=40 delay_off=60
assert_true "create --keep: the LED exists" test -e "$L/ctltest:white:kept"
assert_eq "1 timer 40 60" "$(cat "$L/ctltest:white:kept/max_brightness") $(trigger_of ctltest:white:kept) $(cat "$L/ctltest:white:kept/delay_on") $(cat "$L/ctltest:white:kept/delay_off")" \
	"create: --max, --trigger and trigger attributes applied"
assert_true "create --keep: remembered under /run/uledsd" sh -c "ls /run/uledsd/transient/ | grep -q white"
expect 0 "list with a transient LED" list
assert_true "list marks the transient LED ($out)" grep -q "^ctltest:white:kept (transient) " <<<"$out"
expect 0 "list --json" list --json
assert_eq "true false" "$(jq -r '[(.[] | select(.name == "ctltest:white:kept") | .transient), (.[] | select(.name == "ctltest:green:sig") | .transient)] | join(" ")' <<<"$out")" \
	"list --json: transient true only for the created LED"
assert_eq "b true" "$(busctl --system get-property io.uledsd1 /io/uledsd1/led/ctltest_3awhite_3akept io.uledsd1.LED Transient)" \
	"Transient property"
expect 0 "create with backend settings" create ctltest:white:tmp2 --backend log --keep
expect 0 "list" list
assert_true "create --backend log: its backend ($out)" grep -Eq "^ctltest:white:tmp2 \(transient\) +0/255 +none +log$" <<<"$out"
# Every key of an LED section passes as it is (api/uledsd-conf.h), not as trigger.KEY (issue 31).
expect 0 "create with section keys (blink, events, color, multi_intensity)" create ctltest:rgb:tmp3 \
	--keep --max 255 blink=software events=yes color=rgb multi_intensity="255 0 0"
assert_eq "red green blue" "$(cat "$L/ctltest:rgb:tmp3/multi_index" 2>&1)" "create color=rgb: a multicolour LED"
assert_eq "255 0 0" "$(cat "$L/ctltest:rgb:tmp3/multi_intensity" 2>&1)" "create multi_intensity=: applied"
expect 0 "remove the multicolour one" remove ctltest:rgb:tmp3
expect 1 "create with a bad setting" create ctltest:white:bad max_brightness=lots --keep
assert_true "bad setting: 'KEY: message' like a config error ($err)" grep -q "max_brightness: " <<<"$err"
one_line "bad setting"
assert_true "bad setting: no LED" test ! -e "$L/ctltest:white:bad"
expect 1 "create with a configured name" create ctltest:green:sig --keep
assert_true "configured name: NameInUse says so ($err)" grep -q "exists already (configured)" <<<"$err"
expect 1 "create with a transient's name" create ctltest:white:kept --keep
assert_true "transient name: says so ($err)" grep -q "exists already (a transient one)" <<<"$err"
expect 2 "create with a word that is not KEY=VALUE" create ctltest:white:x junk
expect 1 "remove a configured LED" remove ctltest:green:sig
assert_true "remove configured: NotTransient says what to do ($err)" grep -q "comes from the configuration.*reload" <<<"$err"
expect 4 "remove an unknown LED" remove no:such:led
ctl_nobody create ctltest:white:nobody --keep
assert_eq 1 "$rc" "create as nobody: exit 1"
assert_true "create as nobody: no LED" test ! -e "$L/ctltest:white:nobody"
ctl_nobody remove ctltest:white:kept
assert_eq 1 "$rc" "remove as nobody: exit 1"

# Without --keep: the LED lives as long as uledsctl (monitoring it); kill -9 removes it.
"$ctl" create ctltest:white:owned >"$work/owned" 2>"$work/owned.err" &
owned=$!
_lib_bg_pids+=("$owned")
assert_true "create: the LED appears" wait_for 10 test -e "$L/ctltest:white:owned"
assert_true "create: says it goes with the command" wait_for 5 grep -q "it goes when this command ends" "$work/owned.err"
assert_true "create: monitors its LED" wait_for 5 grep -q "ctltest:white:owned present" "$work/owned"
kill -9 "$owned"
assert_true "kill -9 of create: its LED is removed" wait_for 10 test ! -e "$L/ctltest:white:owned"
assert_true "kill -9 of create: the log says why" grep -q "ctltest:white:owned: its creator closed its connection" "$work/log"
"$ctl" create ctltest:white:int >/dev/null 2>&1 &
int_pid=$!
_lib_bg_pids+=("$int_pid")
wait_for 10 test -e "$L/ctltest:white:int"
kill -INT "$int_pid"
wait "$int_pid"
assert_eq 0 "$?" "create ends with 0 on Ctrl-C"
assert_true "Ctrl-C of create: its LED is removed" wait_for 10 test ! -e "$L/ctltest:white:int"

# Reload leaves transient LEDs alone; a section with a transient's name is reported.
expect 0 "reload with transient LEDs" reload
assert_true "reload: the kept transient LED stays" test -e "$L/ctltest:white:kept"
cat >"$conf/30-clash.conf" <<'C'
[ctltest:white:kept]
backends = log
C
expect 1 "reload: a section a transient LED holds" reload
assert_true "reload: says a transient LED holds it and when it is created ($out)" \
	grep -q "30-clash.conf:1: \[ctltest:white:kept\] is held by a transient LED.*created by the first reload after that LED is removed" <<<"$out"
assert_eq "b true" "$(busctl --system get-property io.uledsd1 /io/uledsd1/led/ctltest_3awhite_3akept io.uledsd1.LED Transient)" \
	"the transient LED is still the transient one"
expect 0 "remove" remove ctltest:white:kept
assert_true "remove: the LED is gone" wait_for 5 test ! -e "$L/ctltest:white:kept"
assert_true "remove: its record is gone" sh -c "! ls /run/uledsd/transient/ | grep -q kept"
expect 0 "reload after the transient LED went: the configured one" reload
assert_eq "b false" "$(busctl --system get-property io.uledsd1 /io/uledsd1/led/ctltest_3awhite_3akept io.uledsd1.LED Transient)" \
	"the configured LED took the name"
rm "$conf/30-clash.conf"
expect 0 "reload without the clash" reload
expect 0 "remove the other" remove ctltest:white:tmp2

# --- bash completion -----------------------------------------------------------------------
complete_words() { # WORDS...: what completing the last word offers
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_uledsctl
	echo "${COMPREPLY[*]}"
}
. "$src/ctl/uledsctl.bash-completion"
PATH=$(dirname "$ctl"):$PATH
assert_eq "set show status" "$(complete_words uledsctl s | xargs -n1 | sort | xargs)" "completion: commands"
assert_eq "ctltest:green:sig" "$(complete_words uledsctl set ctltest:g)" "completion: LED names"
assert_eq "on off" "$(complete_words uledsctl set ctltest:green:sig o)" "completion: values"
assert_true "completion: triggers ($(complete_words uledsctl trigger ctltest:green:sig ''))" \
	grep -qw none <<<"$(complete_words uledsctl trigger ctltest:green:sig '')"
assert_eq "--no-pager --no-legend" "$(complete_words uledsctl list --no)" "completion: options"
assert_eq "ctltest:green:sig" "$(complete_words uledsctl record ctltest:g)" "completion: record's LEDs"
assert_eq "csv" "$(complete_words uledsctl record ctltest:green:sig --format c)" "completion: --format"
assert_eq "--duration" "$(complete_words uledsctl record ctltest:green:sig --dur)" "completion: record's options"

# --- uledsd goes away and comes back ---------------------------------------------------------
kill "$uledsd_pid"
assert_true "monitor: uledsd went away" wait_for 10 grep -q "uledsd went away; waiting for it to come back" "$work/mon"
expect 3 "get while uledsd is away" get ctltest:green:sig
bg_start "$uledsd" --bus system --config-dir "$conf" 2>"$work/log2"
assert_true "monitor: uledsd is back" wait_for 15 sh -c "[ \$(grep -c 'uledsd is back' '$work/mon') = 2 ]"
assert_true "monitor still running" kill -0 "$mon"

# --- Ctrl-C: a clean exit ----------------------------------------------------------------------
kill -INT "$mon"
wait "$mon"
assert_eq 0 "$?" "monitor exits 0 on SIGINT"
kill -INT "$(pgrep -P "$tty_pid")"
if wait_for 10 sh -c "! kill -0 $tty_pid 2>/dev/null"; then
	wait "$tty_pid"
	assert_eq 0 "$?" "monitor on a tty exits 0 on SIGINT (script -e)"
else
	fail "monitor on a tty did not exit within 10 s of SIGINT"
	kill -9 "$tty_pid"
fi
assert_true "monitor on a tty: the lamp row is erased on exit" \
	grep -q $'\r\033\[K\r*$' <<<"$(grep -av '^Script done' "$work/tty" | tail -n 2)"
kill -INT "$mon_one"
wait "$mon_one"
echo "# --- what a person sees: list and status on a terminal ---"
TERM=xterm script -q -c "$ctl list" /dev/null </dev/null | cat -v
TERM=xterm script -q -c "$ctl --no-pager status ctltest:green:sig ctltest:blue:late" /dev/null </dev/null | cat -v
echo "# --- monitor on a terminal (raw) ---"
cat -v "$work/tty" | tail -n 12
