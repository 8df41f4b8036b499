#!/bin/bash
# SPDX-License-Identifier: MIT
# Soak (issue 20): 100 LEDs with gpio + dbus + log backends; writers changing them at >= 1000
# changes/s for SOAK_SECONDS (60); a reload every 5 s that adds, changes and removes LEDs; a
# dbus-daemon restart and a GPIO chip unplug/replug in the middle; busctl clients coming and
# going. Properties, not timings: after warm-up RSS grows <= 64 KiB and the open fds are the
# same, uledsd says nothing but the expected, every LED's final value is right on every backend.
# The warm-up is the first half, with one bus restart and one chip replug of its own: the
# second half repeats both, so code and buffers first touched by them are in both measures.
# usage: test-soak.sh SOAK_WRITER [SECONDS]   (SOAK_WRITER: tests/kernel/soak-writer.c, built;
# SECONDS a multiple of 60)
. "$(dirname "$0")/lib.sh"

writer_bin=$1
secs=${2:-60}
[ $((secs % 60)) = 0 ] && [ "$secs" -gt 0 ] || { fail "SECONDS ($secs) must be a multiple of 60"; exit 1; }
u=$((secs / 6)) # events at u (bus), 2u (chip), 3u (measure), 4u (bus), 5u (chip); end at 6u
src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_gpio_bin) || exit 1
work=$(mktemp -d)
conf=$work/conf
mkdir -p "$conf"
L=/sys/class/leds
N=100

gpiosim_new soak 112 || exit 1
sim_path soak

# The 100 LEDs the writers drive: lines 0-99. warning level: the records are the only
# output besides the expected warnings, so anything else is a finding.
for i in $(seq 0 $((N - 1))); do
	printf '[soak:%d]\nmax_brightness = 255\nbackends = gpio, dbus, log\ngpio.chip = soak\ngpio.line = %d\ndbus.max_rate = 5\nlog.level = warning\nlog.max_rate = 2\n\n' "$i" "$i"
done >"$conf/10-soak.conf"
# Variant A and B of the LEDs the reloads add, change and remove (lines 100-111).
variant() {
	local k
	if [ "$1" = A ]; then
		for k in 1 2 3 4 5; do printf '[soak:x%d]\nbackends = gpio, log\ngpio.chip = soak\ngpio.line = %d\nlog.level = warning\n\n' "$k" $((99 + k)); done
	else
		# x1, x2 removed; x3 changed (max_brightness: recreated); x6-x8 added.
		printf '[soak:x3]\nmax_brightness = 7\nbackends = gpio, log\ngpio.chip = soak\ngpio.line = 102\nlog.level = warning\n\n'
		for k in 4 5 6 7 8; do printf '[soak:x%d]\nbackends = gpio, log\ngpio.chip = soak\ngpio.line = %d\nlog.level = warning\n\n' "$k" $((99 + k)); done
	fi >"$conf/20-extra.conf"
}
variant A
# The reload to variant A is over (measured in the middle, the fds of LEDs being added and
# removed were counted: 228 against 227 in a CI run).
variant_a_applied() {
	test -e "$L/soak:x1" -a -e "$L/soak:x2" -a ! -e "$L/soak:x6" -a ! -e "$L/soak:x7" -a ! -e "$L/soak:x8" &&
		[ "$(cat "$L/soak:x3/max_brightness" 2>/dev/null)" = 255 ]
}

start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$uledsd" --bus system --config-dir "$conf" --state-dir "$work/state" --log-level warning \
	2>"$work/log"
pid=$BG_PID
assert_true "all LEDs exist" wait_for 30 test -e "$L/soak:x5" -a -e "$L/soak:$((N - 1))" ||
	{ cat "$work/log"; exit 1; }
assert_true "uledsd is on the bus" wait_for 30 busctl --system introspect io.uledsd1 /io/uledsd1 >/dev/null 2>&1

# The writer keeps every LED's sysfs file open (a shell's echo reaches ~500 changes/s).
# Clients that come and go: a call, a property, a short-lived monitor.
clients() {
	local end=$(($(_lib_usec) + secs * 1000000)) k=0
	while [ "$(_lib_usec)" -lt "$end" ]; do
		busctl --system --timeout=5 call io.uledsd1 /io/uledsd1 io.uledsd1.Manager ListLEDs >/dev/null 2>&1
		busctl --system --timeout=5 get-property io.uledsd1 "/io/uledsd1/led/soak_3a$((k % N))" \
			io.uledsd1.LED Brightness >/dev/null 2>&1
		timeout 1 busctl --system monitor io.uledsd1 >/dev/null 2>&1
		k=$((k + 1))
	done
	echo "$k" >"$work/clients"
}

measure() { # measure LABEL: prints "RSS_KIB FDS ANON_KIB FILE_KIB"; the fds' targets go to $work/fds.LABEL
	local rss f
	# Settled: the same count twice, 1 s apart (a backend attaching after its LED appeared).
	local n=0 prev=-1 cur
	while cur=$(ls "/proc/$pid/fd" | wc -l) && [ "$cur" != "$prev" ] && [ $((n += 1)) -le 10 ]; do
		prev=$cur
		_lib_sleep 1
	done
	rss=$(awk '/^(VmRSS|RssAnon|RssFile):/ { printf "%s ", $2 }' "/proc/$pid/status")
	for f in "/proc/$pid/fd/"*; do readlink "$f"; done | sed 's/:\[[0-9]*\]$//' | sort | uniq -c >"$work/fds.$1"
	set -- $rss
	echo "$1 $(ls "/proc/$pid/fd" | wc -l) $2 $3"
}
bus_restart() {
	stop_dbus
	_lib_sleep 2
	start_dbus "$src/conf/io.uledsd1.conf" || fail "dbus-daemon did not start again"
}
chip_replug() {
	gpiosim_live soak 0
	_lib_sleep 2
	gpiosim_live soak 1 || fail "the chip did not come back"
	sim_path soak
}

t0=$(_lib_usec)
"$writer_bin" soak: "$N" "$secs" >"$work/writes" &
w1=$!
clients &
cl=$!
at() { local d=$((t0 + $1 * 1000000 - $(_lib_usec))); [ $d -gt 0 ] && _lib_sleep "$((d / 1000000)).$(printf %06d $((d % 1000000)))"; }
reloads=0
ver=A
for t in $(seq 5 5 "$secs"); do
	at "$t"
	if [ "$ver" = A ]; then ver=B; else ver=A; fi
	variant $ver
	kill -HUP "$pid"
	reloads=$((reloads + 1))
	case $t in
	"$u" | "$((4 * u))") bus_restart ;; # the bus goes and comes back
	"$((2 * u))" | "$((5 * u))") chip_replug ;; # the chip goes and comes back
	"$((3 * u))") # warm-up over; variant A again (applied just now: 3u is an even multiple of 5)
		wait_for 20 variant_a_applied && _lib_sleep 1
		read -r rss0 fds0 anon0 file0 <<<"$(measure warm)"
		echo "# after warm-up: RSS $rss0 KiB (anon $anon0, file $file0), $fds0 fds" ;;
	esac
done
wait "$w1" || fail "the writer failed"
wait "$cl"
t1=$(_lib_usec)
[ "$ver" = A ] || { variant A; kill -HUP "$pid"; }
writes=$(cat "$work/writes")
rate=$((writes * 1000000 / (t1 - t0)))
echo "# $writes writes in $(((t1 - t0) / 1000)) ms: $rate changes/s; $reloads reloads; $(cat "$work/clients") client rounds"
assert_true "the writers made >= 1000 changes/s ($rate)" test "$rate" -ge 1000
assert_true "uledsd survived the soak" kill -0 "$pid"

# Final values: one known value an LED, then every backend must show it.
for i in $(seq 0 $((N - 1))); do
	echo $(((i * 37) % 256)) >"$L/soak:$i/brightness"
	echo "soak:$i $(((i * 37) % 256))"
done >"$work/expected"
assert_true "back on the bus" wait_for 20 busctl --system introspect io.uledsd1 /io/uledsd1 >/dev/null 2>&1
assert_true "variant A is back" wait_for 20 variant_a_applied
_lib_sleep 3
read -r rss1 fds1 anon1 file1 <<<"$(measure end)"
echo "# at the end: RSS $rss1 KiB (anon $anon1, file $file1), $fds1 fds"
assert_true "RSS grew <= 64 KiB after warm-up ($rss0 -> $rss1 KiB)" test $((rss1 - rss0)) -le 64
assert_eq "$fds0" "$fds1" "open fds after warm-up and at the end" ||
	{ echo "# the kinds of fd that differ (count, target), warm-up < > end:"; diff "$work/fds.warm" "$work/fds.end" | sed -n 's/^[<>]/# &/p'; }

bad_gpio=0 bad_dbus=0 bad_log=0
for i in $(seq 0 $((N - 1))); do
	v=$(((i * 37) % 256))
	want=0
	[ "$v" -gt 0 ] && want=1
	[ "$(line_val soak "$i")" = "$want" ] || { bad_gpio=$((bad_gpio + 1)); echo "# soak:$i gpio $(line_val soak "$i"), want $want"; }
done
assert_eq 0 "$bad_gpio" "LEDs whose GPIO line is wrong at the end"
busctl --system --json=short call io.uledsd1 /io/uledsd1 org.freedesktop.DBus.ObjectManager \
	GetManagedObjects >"$work/objects.json"
jq -r '.data[0] | to_entries[] | .value["io.uledsd1.LED"] | "\(.Name.data) \(.Brightness.data)"' \
	"$work/objects.json" >"$work/dbus.values"
# One comparison for all LEDs (a grep an LED costs 100 forks under emulation).
bad_dbus=$(awk 'NR == FNR { want[$1] = $2; n++; next } $1 in want && want[$1] == $2 { ok++ }
	END { print n - ok }' "$work/expected" "$work/dbus.values")
assert_eq 0 "$bad_dbus" "LEDs whose D-Bus Brightness is wrong at the end"
awk '$2 == "brightness" { sub(/:$/, "", $1); split($3, a, "/"); last[$1] = a[1] }
	END { for (k in last) print k, last[k] }' "$work/log" >"$work/log.values"
bad_log=$(awk 'NR == FNR { want[$1] = $2; n++; next } $1 in want && want[$1] == $2 { ok++ }
	END { print n - ok }' "$work/expected" "$work/log.values")
assert_eq 0 "$bad_log" "LEDs whose last log record is wrong at the end"

# Expected: the bus going away, and the reconnection finding no socket while it is away (once
# per process, and only when uledsd tries before dbus-daemon is back: seen in CI); the chip
# going away (a warning for each of its LEDs, also for one whose request raced with the
# removal); LEDs a reload adds while the chip is away.
grep -v -E '^soak:[0-9a-z]+: brightness [0-9]+/[0-9]+( \([0-9]+ more changes not logged\))?$' "$work/log" |
	grep -v -E '^Lost the connection to the system bus \(dbus-daemon stopped or restarted\?\)' |
	grep -v -E '^No D-Bus system bus \(/run/dbus/system_bus_socket: No such file or directory\); the LEDs work without it' |
	grep -v -E '^soak:[0-9a-z]+: gpio: waiting for gpiochip[0-9]+ \(removed\)' |
	grep -v -E "^soak:x[0-9]+: gpio: waiting for a chip labelled 'soak'\. Chips now: none" >"$work/unexpected"
assert_eq 0 "$(wc -l <"$work/unexpected")" "messages from uledsd besides records and the expected warnings: $(head -5 "$work/unexpected")"
kill -TERM "$pid"
wait "$pid"
assert_eq 0 "$?" "uledsd exits 0 after the soak"
