#!/bin/bash
# SPDX-License-Identifier: MIT
# Bad inputs a running uledsd must survive (tests/BAD-INPUTS.md), in one boot: the fd limit,
# a state directory that is full or read-only, SIGHUP storms, SIGTERM during a reload, and
# D-Bus callers with huge strings, bad names, path-like attributes and a flood of clients.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_bin) || exit 1
work=$(mktemp -d)
L=/sys/class/leds
B=(busctl --system --no-pager)
M=(io.uledsd1 /io/uledsd1 io.uledsd1.Manager)

# --- an unreadable configuration directory (root without CAP_DAC_OVERRIDE, as under a unit
# with an empty capability set), and one that is a file --------------------------------------
mkdir -p "$work/locked"
printf '[bad:locked]\n' >"$work/locked/10.conf"
chmod 000 "$work/locked"
out=$(setpriv --inh-caps=-all --bounding-set=-all "$uledsd" --check-config --config-dir "$work/locked" 2>&1)
assert_eq 1 "$?" "--check-config of an unreadable directory exits 1"
assert_true "unreadable: the message names the directory and the error ($out)" \
	grep -qF "Failed to open configuration directory $work/locked: Permission denied" <<<"$out"
printf '[bad:file]\n' >"$work/is-a-file"
out=$("$uledsd" --check-config --config-dir "$work/is-a-file" 2>&1)
assert_eq 1 "$?" "--check-config of a configuration 'directory' that is a file exits 1"
assert_true "a file as directory: the message says so ($out)" \
	grep -qF "uledsd: configuration directory '$work/is-a-file' (given with -c) is not a directory; check the path." <<<"$out"

# --- EMFILE: more LEDs than the fd limit allows ------------------------------------------
mkdir -p "$work/many"
for i in $(seq 1 60); do printf '[bad:many%02d]\nmax_brightness = 1\nbackends = log\nlog.max_rate = 0\n' "$i"; done \
	>"$work/many/10-many.conf"
# 30 fds: stdio, sd-event's, the bus-less manager's; the rest are LEDs until the limit.
bg_start prlimit --nofile=30:30 "$uledsd" --bus none --config-dir "$work/many" --state-dir "$work/st0" \
	2>"$work/emfile.log"
pid=$BG_PID
assert_true "uledsd at the fd limit gets ready" wait_for 20 grep -q "Ready:" "$work/emfile.log"
n=$(ls -d $L/bad:many* 2>/dev/null | wc -l)
assert_true "some LEDs exist at the fd limit ($n of 60)" test "$n" -gt 5 -a "$n" -lt 60
assert_true "EMFILE is an error naming FILE:LINE, the LED, the limit and the fix ($(grep -m1 -i 'open files' "$work/emfile.log"))" \
	grep -q "10-many.conf:[0-9]*: \[bad:many[0-9]*\] cannot be created: Too many open files (uledsd holds one file descriptor an LED; its limit is 30). Raise LimitNOFILE= of uledsd.service, or define fewer LEDs." "$work/emfile.log"
first=$(ls -d $L/bad:many* | head -n1)
echo 1 >"$first/brightness"
assert_true "the LEDs that exist forward at the fd limit" \
	wait_for 5 grep -q "$(basename "$first"): brightness 1/1" "$work/emfile.log"
kill -TERM "$pid"
wait "$pid"
assert_eq 0 "$?" "uledsd at the fd limit exits 0 on SIGTERM"
assert_true "no LED left after SIGTERM" sh -c "! ls $L | grep -q '^bad:many'"

# --- the state directory full, then read-only ---------------------------------------------
mkdir -p "$work/conf" "$work/state"
cat >"$work/conf/10-bad.conf" <<'C'
[bad:restore]
max_brightness = 255
default_brightness = restore
backends = log
log.max_rate = 0

[bad:other]
max_brightness = 255
backends = log
log.max_rate = 0
C
mount -t tmpfs -o size=16k tmpfs "$work/state"
dd if=/dev/zero of="$work/state/filler" bs=4k count=64 2>/dev/null
bg_start "$uledsd" --bus none --config-dir "$work/conf" --state-dir "$work/state" 2>"$work/full.log"
pid=$BG_PID
assert_true "uledsd is ready with a full state directory" wait_for 10 grep -q "Ready:" "$work/full.log"
echo 99 >"$L/bad:restore/brightness"
echo 5 >"$L/bad:other/brightness"
assert_true "other LEDs forward with a full state directory" \
	wait_for 5 grep -q "bad:other: brightness 5/255" "$work/full.log"
kill -TERM "$pid"
wait "$pid"
assert_eq 0 "$?" "exit 0 although the state could not be saved"
assert_true "full: the warning names the LED, the file and the error ($(grep -m1 'save' "$work/full.log"))" \
	grep -q "bad:restore: failed to save brightness to $work/state/bad%3Arestore.*No space left on device" "$work/full.log"
rm -f "$work/state/filler"
mount -o remount,ro "$work/state"
bg_start "$uledsd" --bus none --config-dir "$work/conf" --state-dir "$work/state" 2>"$work/ro.log"
pid=$BG_PID
assert_true "uledsd is ready with a read-only state directory" wait_for 10 grep -q "Ready:" "$work/ro.log"
echo 42 >"$L/bad:restore/brightness"
kill -TERM "$pid"
wait "$pid"
assert_eq 0 "$?" "exit 0 with a read-only state directory"
assert_true "read-only: the warning says so ($(grep -m1 'save' "$work/ro.log"))" \
	grep -q "bad:restore: failed to save brightness to .*Read-only file system" "$work/ro.log"
umount "$work/state"

# --- SIGHUP storm, then SIGTERM in the middle of a reload ----------------------------------
bg_start "$uledsd" --bus none --config-dir "$work/conf" --state-dir "$work/st1" 2>"$work/hup.log"
pid=$BG_PID
assert_true "uledsd is ready (SIGHUP storm)" wait_for 10 grep -q "Ready:" "$work/hup.log"
ino=$(stat -c %i "$L/bad:other")
for i in $(seq 1 200); do kill -HUP "$pid"; done
printf '[bad:new]\nbackends = log\n' >"$work/conf/20-new.conf"
kill -HUP "$pid"
assert_true "after 200 SIGHUPs a last reload still applies" wait_for 20 test -e "$L/bad:new"
assert_true "uledsd survived the SIGHUP storm" kill -0 "$pid"
assert_eq "$ino" "$(stat -c %i "$L/bad:other")" "the unchanged LED stayed the same node through the storm"
echo 77 >"$L/bad:other/brightness"
assert_true "it still forwards after the storm" wait_for 5 grep -q "bad:other: brightness 77/255" "$work/hup.log"
rm "$work/conf/20-new.conf"
kill -HUP "$pid"
kill -TERM "$pid"
wait "$pid"
assert_eq 0 "$?" "SIGTERM right after SIGHUP: exit 0"
assert_true "SIGTERM during a reload leaves no LED behind" sh -c "! ls $L | grep -q '^bad:'"

# --- D-Bus: hostile arguments and a flood of clients ---------------------------------------
start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$uledsd" --bus system --config-dir "$work/conf" --state-dir "$work/st2" 2>"$work/dbus.log"
pid=$BG_PID
assert_true "uledsd serves io.uledsd1" wait_for 10 grep -q "Serving io.uledsd1" "$work/dbus.log"
other=/io/uledsd1/led/bad_3aother
call_err() { "${B[@]}" call "$@" 2>&1 >/dev/null; }
huge=$(head -c 65536 /dev/zero | tr '\0' x)
e=$(call_err io.uledsd1 "$other" io.uledsd1.LED SetTrigger s "$huge")
assert_true "SetTrigger with a 64 KiB name: InvalidArgs, not echoed ($e)" \
	grep -q "A trigger name of 65536 bytes is not a trigger name (at most 63)" <<<"$e"
e=$(call_err "${M[@]}" GetLED s "$huge")
assert_true "GetLED with a 64 KiB name: UnknownLED (${e:0:60})" grep -q "No LED named" <<<"$e"
n64=$(head -c 64 /dev/zero | tr '\0' n)
e=$(call_err "${M[@]}" CreateLED 'sa(ss)b' "$n64" 0 false)
assert_true "CreateLED with a 64-byte name: the kernel's limit ($e)" \
	grep -q "is not a valid LED name: it is longer than the kernel's 63 bytes" <<<"$e"
e=$(call_err "${M[@]}" CreateLED 'sa(ss)b' "$(printf 'a\tb')" 0 false)
assert_true "CreateLED with a control byte in the name ($e)" grep -q "it contains a control character" <<<"$e"
e=$(call_err "${M[@]}" CreateLED 'sa(ss)b' "x] ;" 0 false)
assert_true "CreateLED with ']' in the name ($e)" grep -q "contains ']'" <<<"$e"
e=$(call_err "${M[@]}" CreateLED 'sa(ss)b' "bad:huge" 1 max_brightness "$huge" false)
assert_true "CreateLED with a 64 KiB value: refused by size, before parsing ($(head -c 160 <<<"$e"))" \
	grep -q "CreateLED() takes at most 64 settings of 8192 bytes in all" <<<"$e"
assert_true "no LED was made by the refused CreateLEDs" sh -c "! ls $L | grep -q -e '^nnnn' -e '^x\\]' -e '^bad:huge'"
e=$(call_err io.uledsd1 "$other" io.uledsd1.LED SetTriggerAttributes 'a(ss)' 1 ../brightness 1)
assert_true "SetTriggerAttributes '../brightness': InvalidArgs ($e)" grep -q "is not a trigger attribute" <<<"$e"
e=$(call_err io.uledsd1 "$other" io.uledsd1.LED SetTriggerAttributes 'a(ss)' 1 device/uevent x)
assert_true "SetTriggerAttributes 'device/uevent': InvalidArgs" grep -q "is not a trigger attribute" <<<"$e"
e=$(call_err io.uledsd1 "$other" io.uledsd1.LED SetBrightness s 1)
assert_true "SetBrightness with signature s: InvalidArgs ($e)" grep -q "InvalidArgs\|expecting 'u'\|Invalid argument" <<<"$e"
e=$(call_err io.uledsd1 "$other" io.uledsd1.LED SetBrightness u 4294967295)
assert_true "SetBrightness 2^32-1: out of range ($e)" grep -q "out of range for LED 'bad:other'" <<<"$e"

# 8 clients at once, 5 rounds of a root call and a nobody call each: every call answered.
echo 0 >"$L/bad:other/brightness"
clients=()
for c in $(seq 1 8); do
	(
		for i in $(seq 1 5); do
			"${B[@]}" call io.uledsd1 "$other" io.uledsd1.LED SetBrightness u $((c * 10 + i % 2)) || echo fail
			setpriv --reuid=65534 --regid=65534 --clear-groups "${B[@]}" call "${M[@]}" ListLEDs >/dev/null || echo fail
		done
	) >"$work/client.$c" 2>&1 &
	clients+=($!)
done
wait "${clients[@]}"
assert_eq 0 "$(cat "$work"/client.* | grep -c fail)" "every call of 8 parallel clients was answered"
assert_true "uledsd survived the flood of clients" kill -0 "$pid"
"${B[@]}" call io.uledsd1 "$other" io.uledsd1.LED SetBrightness u 123
assert_eq 123 "$(cat "$L/bad:other/brightness")" "a call after the flood still works"
assert_true "the log backend saw the final value" wait_for 5 grep -q "bad:other: brightness 123/255" "$work/dbus.log"
kill -TERM "$pid"
wait "$pid"
assert_eq 0 "$?" "exit 0 after the hostile callers"
