#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 14, "a newcomer's first hour": the README's config, busctl and uledsctl lines run as
# written, and the messages a newcomer meets say what to do.
. "$(dirname "$0")/lib.sh"
src=$ULEDSD_SOURCE_ROOT
uledsd=$(uledsd_bin)
ctl=$ULEDSD_BUILD_ROOT/ctl/uledsctl
export PATH=$ULEDSD_BUILD_ROOT/ctl:$PATH # the README says uledsctl
work=$(mktemp -d)
chmod 755 "$work" # read by uledsd as nobody below
conf=$work/uledsd.d
mkdir "$conf"
awk '/^```ini/{f=1;next} /^```/{f=0} f' "$src/README.md" >"$conf/board.conf"
# The README's shell blocks after "## D-Bus and uledsctl", one command a line.
readme_lines() { # PREFIX
	awk '/^## D-Bus and uledsctl/{s=1} /^## Panel/{s=0} s && /^```sh/{f=1;next} /^```/{f=0} s && f' \
		"$src/README.md" | sed 's/ *# .*//' | grep "^$1 " | grep -v "monitor"
}

start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$uledsd" --bus system --config-dir "$conf" 2>"$work/log"
main_pid=$BG_PID
assert_true "the README's LEDs exist" wait_for 10 test -e /sys/class/leds/board:green:power
assert_true "uledsd is on the bus" wait_for 10 busctl introspect io.uledsd1 /io/uledsd1
while read -r line; do
	assert_true "README: $line" bash -c "$line >/dev/null"
done < <(readme_lines busctl)
while read -r line; do
	assert_true "README: $line" bash -c "$line >/dev/null"
done < <(readme_lines uledsctl)
assert_true "README: uledsctl monitor runs" bash -c "timeout 2 $ctl monitor >/dev/null; [ \$? = 124 ]"

# Point 7: a second instance exits at once, naming the first.
out=$(timeout 20 "$uledsd" --bus none --config-dir "$conf" 2>&1); rc=$?
assert_eq 1 "$rc" "a second uledsd exits with 1"
n_readme=$(grep -c '^\[' "$conf/board.conf") # the README's examples, however many
want="All $n_readme configured LEDs exist already: another uledsd (PID $main_pid) runs them. Stop it first (systemctl stop uledsd, or kill $main_pid)."
assert_true "second instance says: $want ($out)" grep -qF "$want" <<<"$out"
# ... and as a user that cannot open /dev/uleds.
out=$(timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups "$uledsd" --bus none \
	--config-dir "$conf" 2>&1); rc=$?
assert_eq 1 "$rc" "uledsd as nobody exits with 1"
assert_true "nobody: says run as root ($out)" grep -qF "Cannot open /dev/uleds: Permission denied. uledsd must run as root" <<<"$out"
kill "$main_pid"; wait "$main_pid" 2>/dev/null

# Point 5: heartbeat + log does not flood (the README's old first LED: 143 records in 22 s).
cat >"$conf/board.conf" <<'CONF'
[board:green:heartbeat]
trigger = heartbeat
backends = log
CONF
bg_start "$uledsd" --bus none --config-dir "$conf" 2>"$work/hb"
sleep 6
kill "$BG_PID"; wait "$BG_PID" 2>/dev/null
n=$(grep -c "board:green:heartbeat: brightness" "$work/hb")
assert_true "heartbeat logged $n records in 6 s (at most 2)" test "$n" -le 2

# Point 4: a mistyped trigger gets the nearest name, not a modprobe of a module that does
# not exist; a real one not loaded gets modprobe, and is attached once loaded, no reload.
cat >"$conf/board.conf" <<'CONF'
[typo]
trigger = hartbeat
[later]
trigger = activity
CONF
rmmod ledtrig_activity 2>/dev/null
bg_start "$uledsd" --bus none --config-dir "$conf" 2>"$work/trig"
assert_true "LED with an unavailable trigger is created" wait_for 10 test -e /sys/class/leds/later
sleep 1
assert_true "typo: nearest name ($(cat "$work/trig"))" grep -qF "trigger 'hartbeat' is not available for [typo]: no module ledtrig-hartbeat exists; did you mean 'heartbeat'?" "$work/trig"
assert_true "typo: no modprobe hint" bash -c "! grep -q 'modprobe ledtrig-hartbeat' $work/trig"
assert_true "activity: modprobe hint" grep -qF "load its module (modprobe ledtrig-activity); uledsd attaches it when it appears" "$work/trig"
modprobe ledtrig-activity
assert_true "activity attached after modprobe, no reload" wait_for 10 grep -q '\[activity\]' /sys/class/leds/later/trigger
assert_true "says it attached" wait_for 5 grep -qF "later: trigger 'activity' is available now; attached." "$work/trig"
kill "$BG_PID"; wait "$BG_PID" 2>/dev/null

# Point 8: a mistyped -c directory.
out=$("$uledsd" --bus none --config-dir "$work/nope" 2>&1); rc=$?
assert_eq 1 "$rc" "missing -c directory exits with 1"
assert_true "missing -c says so ($out)" grep -qF "configuration directory '$work/nope' (given with -c) does not exist" <<<"$out"

# Point 3: gpio.chip as gpiodetect shows the label works; a label that matches no chip names
# the chips there are, in the log and in --check-config (a warning: it may be plugged in later),
# and STATUS counts the waiting backend.
gpiosim_new fh:node0 2 FH_L0 FH_L1 || exit 1
label=$(gpiodetect | sed -n "s/^$GPIOSIM_CHIP \[\(.*\)\] .*/\1/p")
assert_eq "fh:node0" "$label" "gpiodetect shows the chip's label in brackets"
cat >"$conf/board.conf" <<CONF
[fh:green:label]
max_brightness = 1
default_brightness = 1
backends = gpio
gpio.chip = $label
gpio.line = FH_L1

[fh:red:typo]
backends = gpio
gpio.chip = fh-node0
gpio.line = FH_L0
CONF
chips="$GPIOSIM_CHIP [fh:node0]"
"$uledsd" --check-config --config-dir "$conf" >"$work/check.out" 2>"$work/check.err"; rc=$?
assert_eq 0 "$rc" "--check-config: a chip that is not there is a warning, not an error"
assert_true "--check-config warns and lists the chips ($(cat "$work/check.err"))" grep -qF \
	"board.conf:9: [fh:red:typo] warning: gpio.chip = fh-node0 matches no GPIO chip; chips now: $chips" "$work/check.err"
assert_true "--check-config: no warning for the label as gpiodetect shows it" \
	bash -c "! grep -q 'fh:green:label' $work/check.err"
assert_true "--check-config counts the warning ($(cat "$work/check.out"))" \
	grep -qF ": 2 LEDs valid, 0 errors, 1 warning." "$work/check.out"
bg_start "$uledsd" --bus none --config-dir "$conf" 2>"$work/chip"
assert_true "uledsd is ready" wait_for 10 grep -q "Ready:" "$work/chip"
assert_eq 1 "$(gpiosim_value fh:node0 1)" "the LED with the documented label drives its line"
assert_true "log: the wrong label lists the chips ($(cat "$work/chip"))" grep -qF \
	"fh:red:typo: gpio: waiting for a chip labelled 'fh-node0'. Chips now: $chips; gpio.chip is a chip name, path or label as gpiodetect shows it." "$work/chip"
assert_true "STATUS counts the waiting backend" \
	grep -qF "Ready: 2 LEDs, 0 errors, 1 backend not working." "$work/chip"

# Issue 31: --check-config checks trigger names against the running kernel (its registered
# triggers, read from an LED's trigger file, and its ledtrig modules): a typo is a warning
# with the nearest name; a module not loaded yet, or a device's trigger, is none.
modprobe ledtrig-timer
mkdir -p "$work/trigcheck"
printf '[fh:a]\ntrigger = timre\n\n[fh:b]\ntrigger = pattern\n\n[fh:c]\ntrigger = phy0tx\n' >"$work/trigcheck/t.conf"
"$uledsd" --check-config --config-dir "$work/trigcheck" >"$work/trigcheck.out" 2>"$work/trigcheck.err"; rc=$?
assert_eq 0 "$rc" "--check-config: an unknown trigger is a warning, not an error"
assert_true "--check-config: a typo names the nearest trigger ($(cat "$work/trigcheck.err"))" grep -qF \
	"t.conf:2: [fh:a] warning: trigger 'timre' is not registered in this kernel and no module ledtrig-timre exists; did you mean 'timer'?" "$work/trigcheck.err"
assert_eq 1 "$(grep -c warning "$work/trigcheck.err")" "--check-config: a loadable module (pattern) and a device's trigger (phy0tx) are no warning"
kill "$BG_PID"; wait "$BG_PID" 2>/dev/null

# Point 9: --bus session without a session bus says so, and how to get one (the advice works).
sconf=$work/session.d
mkdir "$sconf"
printf '[fh:session]\nbackends = log\n' >"$sconf/s.conf"
howto="To run uledsd with a session bus of its own: dbus-run-session -- uledsd --bus session ...; or set DBUS_SESSION_BUS_ADDRESS to the address of a running one."
out=$(env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR timeout 3 "$uledsd" --bus session \
	--config-dir "$sconf" 2>&1)
assert_true "no session bus variables: says so and how ($out)" grep -qF \
	"No session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set (not in a login session); the LEDs work without D-Bus. $howto" <<<"$out"
mkdir -m 700 "$work/rt"
out=$(env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR="$work/rt" timeout 3 "$uledsd" \
	--bus session --config-dir "$sconf" 2>&1)
assert_true "XDG_RUNTIME_DIR without a bus: says so and how ($out)" grep -qF \
	"No D-Bus session bus ($work/rt/bus: No such file or directory); the LEDs work without it, uledsd attaches to the bus when it appears. $howto" <<<"$out"
assert_true "no 'No medium found'" bash -c '! grep -q "No medium" <<<"$1"' _ "$out"
out=$(env -u DBUS_SESSION_BUS_ADDRESS dbus-run-session -- timeout 5 "$uledsd" --bus session \
	--config-dir "$sconf" 2>&1)
assert_true "dbus-run-session as advised: on the session bus ($out)" \
	grep -qF "Serving io.uledsd1 on the session bus." <<<"$out"

# Point 5, the rest: with no trigger each write is logged at once (someone wants to see it);
# while a trigger drives the LED it is quiet; when the trigger goes, writes are logged again.
lconf=$work/log.d
mkdir "$lconf"
printf '[fh:log]\nbackends = log\n' >"$lconf/l.conf"
bg_start "$uledsd" --bus none --config-dir "$lconf" 2>"$work/writes"
assert_true "uledsd is ready" wait_for 10 grep -q "Ready:" "$work/writes"
L=/sys/class/leds/fh:log
for v in 10 20 30 40 50; do echo $v >$L/brightness; sleep 0.2; done
logged() { for v in "$@"; do grep -q "fh:log: brightness $v/255" "$work/writes" || return 1; done; }
assert_true "no trigger: each of 5 writes logged at once ($(grep fh:log "$work/writes"))" \
	wait_for 1 logged 10 20 30 40 50
n0=$(grep -c "fh:log: brightness" "$work/writes")
echo heartbeat >$L/trigger
sleep 4
n1=$(grep -c "fh:log: brightness" "$work/writes")
assert_true "heartbeat: quiet ($((n1 - n0)) records in 4 s, at most 1)" test $((n1 - n0)) -le 1
echo none >$L/trigger
echo 77 >$L/brightness
assert_true "trigger removed: the write is logged at once ($(tail -3 "$work/writes"))" \
	wait_for 1 logged 77
assert_true "trigger removed: the heartbeat's summary came first" \
	grep -q "fh:log: brightness .* more changes not logged" "$work/writes"
kill "$BG_PID"; wait "$BG_PID" 2>/dev/null

# Issue 31: conf/example.conf copied as it is runs without an error, drives no GPIO line, and its
# netdev LED follows this machine's lo: lit with the link up, dark for a moment with traffic.
econf=$work/example.d
mkdir "$econf"
cp "$src/conf/example.conf" "$econf/"
ip link set lo up
# As at boot: the modules uledsd's modules-load.d file names (uleds is loaded already).
for m in $(grep -v '^#' "$src/conf/modules-load.d/uleds.conf" | grep -vx uleds); do
	assert_true "modules-load.d/uleds.conf: $m loads" modprobe "$m"
done
bg_start "$uledsd" --bus none --config-dir "$econf" 2>"$work/example"
assert_true "example.conf as it is: ready" wait_for 10 grep -q "Ready:" "$work/example"
assert_true "example.conf as it is: no error ($(grep -E 'Ready|error|cannot' "$work/example" | head -n 5))" \
	grep -qE "Ready: [0-9]+ LEDs, 0 errors" "$work/example"
assert_true "example.conf: no gpio backend at work" bash -c "! grep -q 'gpio' <<<\"\$(cat '$work/example')\""
N=/sys/class/leds/demo:green:lan
assert_true "the netdev LED's trigger is netdev" grep -q '\[netdev\]' $N/trigger
assert_eq "lo 1 1 1" "$(cat $N/device_name $N/link $N/tx $N/rx | tr '\n' ' ' | sed 's/ $//')" \
	"device_name, link, tx, rx as the example sets them"
assert_eq 1 "$(cat $N/brightness)" "lo's link is up: the LED is lit"
dark=0
for _ in $(seq 100); do
	echo x >/dev/udp/127.0.0.1/9 2>/dev/null
	[ "$(cat $N/brightness)" = 0 ] && dark=$((dark + 1))
done
echo "# netdev on lo: dark in $dark of 100 samples right after a packet"
assert_true "traffic on lo makes it flicker (dark in $dark of 100 samples)" test "$dark" -ge 1
kill "$BG_PID"; wait "$BG_PID" 2>/dev/null

