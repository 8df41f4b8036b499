#!/bin/bash
# SPDX-License-Identifier: MIT
# Core behaviour on a real kernel: LEDs from drop-ins, log backend, triggers, reload, exit.
. "$(dirname "$0")/lib.sh"

uledsd=$(uledsd_bin) || exit 1
work=$(mktemp -d)
mkdir -p "$work/etc" "$work/lib"
L=/sys/class/leds

cat >"$work/lib/10-board.conf" <<'C'
[core:green:power]
max_brightness = 100
backends = log
log.max_rate = 0

[core:red:blink]
max_brightness = 1
trigger = timer
trigger.delay_on = 50
trigger.delay_off = 150

[core:keep]
max_brightness = 7
trigger = heartbeat
C
cat >"$work/etc/20-more.conf" <<'C'
[core:amber:status]
max_brightness = 3
default_brightness = 2
backends = log
log.max_rate = 0

[core:broken]
max_brightness = many
C
cat >"$work/etc/30-trigger.conf" <<'C'
[core:needs:netdev]
trigger = netdev
C

bg_start "$uledsd" --bus none --config-dir "$work/etc" --config-dir "$work/lib" 2>"$work/log"
pid=$BG_PID
assert_true "LEDs appear" wait_for 10 test -d "$L/core:amber:status"
sleep 0.3

assert_eq 100 "$(cat $L/core:green:power/max_brightness)" "max_brightness of core:green:power"
assert_eq 1 "$(cat $L/core:red:blink/max_brightness)" "max_brightness of core:red:blink"
assert_eq 3 "$(cat $L/core:amber:status/max_brightness)" "max_brightness from the second file"
assert_eq 2 "$(cat $L/core:amber:status/brightness)" "default_brightness applied"
assert_true "the broken LED is not created" test ! -e "$L/core:broken"
assert_true "the broken LED's error names FILE:LINE" \
	grep -q "20-more.conf:8: max_brightness = 'many' is not valid" "$work/log"
assert_true "an unavailable trigger is an error naming its module" \
	grep -qF "30-trigger.conf:2: trigger 'netdev' is not available for [core:needs:netdev]: load its module (modprobe ledtrig-netdev); uledsd attaches it when it appears." "$work/log"
# (created without it; the kernel may load the module on its own and uledsd attach it soon)
assert_true "the LED with the unavailable trigger is created" test -d "$L/core:needs:netdev"

# trigger and its attributes from the configuration
assert_true "timer trigger selected" grep -q '\[timer\]' "$L/core:red:blink/trigger"
assert_eq 50 "$(cat $L/core:red:blink/delay_on)" "trigger.delay_on"
assert_eq 150 "$(cat $L/core:red:blink/delay_off)" "trigger.delay_off"
assert_true "heartbeat trigger selected" grep -q '\[heartbeat\]' "$L/core:keep/trigger"

# a sysfs write reaches the log backend, clamped by the LED core
echo 42 >"$L/core:green:power/brightness"
assert_true "log backend sees 42" wait_for 5 grep -q "core:green:power: brightness 42/100" "$work/log"
echo 1000 >"$L/core:green:power/brightness"
assert_true "log backend sees the clamped value" \
	wait_for 5 grep -q "core:green:power: brightness 100/100" "$work/log"
echo 0 >"$L/core:green:power/brightness"
assert_true "log backend sees 0" wait_for 5 grep -q "core:green:power: brightness 0/100" "$work/log"

# an LED name that already exists is refused, not renamed (with another LED that works: when
# every LED exists already uledsd exits instead, see first-hour)
mkdir -p "$work/clash"
printf '[core:keep]\n[core:clash:other]\n' >"$work/clash/a.conf"
"$uledsd" --bus none --config-dir "$work/clash" 2>"$work/clash.log" &
clash=$!
sleep 1.5
kill $clash 2>/dev/null
wait $clash 2>/dev/null
assert_true "a name clash is a clear error" grep -q "an LED named 'core:keep' already exists" "$work/clash.log"
assert_true "no renamed LED appears" test ! -e "$L/core:keep_1"

# reload: keep, remove, add, update in place; fix the trigger module and the LED comes
ino_keep=$(stat -c %i "$L/core:keep")
ino_power=$(stat -c %i "$L/core:green:power")
# watch the unchanged LED's node through the reload
(while :; do [ -e "$L/core:keep" ] || echo gone >>"$work/keep-gone"; done) &
watcher=$!
rm "$work/lib/10-board.conf"
cat >"$work/lib/10-board.conf" <<'C'
[core:green:power]
max_brightness = 100
backends = log
log.max_rate = 0
log.level = notice

[core:keep]
max_brightness = 7
trigger = heartbeat

[core:new]
max_brightness = 5
C
modprobe ledtrig-netdev
kill -HUP $pid
assert_true "new LED after SIGHUP" wait_for 10 test -d "$L/core:new"
assert_true "removed LED gone after SIGHUP" wait_for 10 test ! -e "$L/core:red:blink"
assert_true "LED whose trigger module is now loaded gets it" \
	wait_for 10 grep -q '\[netdev\]' "$L/core:needs:netdev/trigger"
sleep 0.5
kill $watcher
wait $watcher 2>/dev/null
assert_true "the unchanged LED's node never disappeared during reload" test ! -e "$work/keep-gone"
assert_eq "$ino_keep" "$(stat -c %i $L/core:keep)" "unchanged LED is the same sysfs node"
assert_true "unchanged LED keeps its trigger" grep -q '\[heartbeat\]' "$L/core:keep/trigger"
assert_eq "$ino_power" "$(stat -c %i $L/core:green:power)" "LED with changed backend settings not recreated"
echo 9 >"$L/core:green:power/brightness"
assert_true "re-attached log backend forwards" wait_for 5 grep -q "core:green:power: brightness 9/100" "$work/log"

# a broken new definition keeps the old one running
cat >"$work/lib/10-board.conf" <<'C'
[core:green:power]
max_brightness = 100
backends = nosuch

[core:keep]
max_brightness = 7
trigger = heartbeat

[core:new]
max_brightness = 5
C
kill -HUP $pid
assert_true "reload reports the broken definition" wait_for 10 grep -q "10-board.conf:3: unknown backend 'nosuch'" "$work/log"
assert_true "the LED keeps running with its old definition" test -d "$L/core:green:power"
assert_true "its old definition is kept (message)" grep -q "core:green:power: the new definition has errors; keeping the old one" "$work/log"

# max_brightness changes recreate
sed -i 's/max_brightness = 5/max_brightness = 6/' "$work/lib/10-board.conf"
kill -HUP $pid
assert_true "changed max_brightness recreates the LED" wait_for 10 grep -qx 6 "$L/core:new/max_brightness"

# SIGTERM removes every LED and exits 0
kill -TERM $pid
wait $pid
assert_eq 0 $? "exit status after SIGTERM"
assert_true "no LED left after SIGTERM" sh -c "! ls $L | grep -q '^core:'"

# a missing device is an error that says what to do
"$uledsd" --bus none --config-dir "$work/etc" --uleds-device /dev/nonexistent 2>"$work/nodev.log"
assert_eq 1 $? "exit status without a uleds device"
assert_true "the message says to load the module" grep -q "modprobe uleds" "$work/nodev.log"
echo "--- uledsd log"
cat "$work/log"
