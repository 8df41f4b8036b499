#!/bin/bash
# SPDX-License-Identifier: MIT
# The benchmark inside the test VM (run by bench/run.sh through tests/kernel/vm-run.sh).
# Appends one JSON object per measurement to $ULEDSD_BUILD_ROOT/bench/results.jsonl.
#
# env: ULEDSD_BUILD_ROOT (the build dir, shared with the host), ULEDSD_KMOD_DIR (modules),
#      ULEDSD_BENCH_QUICK=1 (fewer samples: a smoke run of the whole script)
set -euo pipefail
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

build=$ULEDSD_BUILD_ROOT
uledsd=$build/daemon/uledsd
measure=$build/bench/bench-measure
baseline=$build/bench/bench-baseline
trivial=$build/bench/bench-trivial
out=$build/bench/results.jsonl
work=$(mktemp -d)
logs=$build/bench/logs
mkdir -p "$logs"
: >"$out"

quick=${ULEDSD_BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then
	LAT_N=300 LAT_BLOCK=100 PP_N=200 BATCH_ROUNDS=1 BATCH_BLOCKS=1 IDLE_S=2 FLOOD_S=2
	SCALES="1 100"
else
	LAT_N=3000 LAT_BLOCK=250 PP_N=2000 BATCH_ROUNDS=2 BATCH_BLOCKS=3 IDLE_S=10 FLOOD_S=5
	SCALES="1 100 1000"
fi
BIG=1000 # LEDs of the many-LED throughput run (and the largest scale)
HUGE=${ULEDSD_BENCH_HUGE:-10000} # the scale point of issue 19 (0: skip)
[ "$quick" = 1 ] && HUGE=${ULEDSD_BENCH_HUGE:-2000}
# uledsd as it was before a change (bench/run.sh --before REV): measured alongside, same boot.
before=$build/bench/before/uledsd
[ -x "$before" ] || before=

log() { echo "bench: $*" >&2; }
# 10 000 LEDs are 10 000 fds in uledsd and in the bare registration (the guest's shell has 4096).
ulimit -n 65536
result() { echo "$1" | tee -a "$out"; }

# The measuring program and every forwarder share CPU 0 (the measurement yields the CPU
# while it waits for a line to change); dbus-daemon has CPU 1. Waking a forwarder on the
# other vCPU would measure how fast qemu's halted vCPU thread gets the host CPU back
# (milliseconds on a loaded host), not the forwarder. The kernel's unbound workqueues,
# where leds-gpio's work runs, are held to CPU 0 as well.
FWD_CPU=0
M() { taskset -c 0 "$measure" "$@"; }
only=${ULEDSD_BENCH_ONLY:-scale latency batch huge modes dbus}
want() { [[ " $only " == *" $1 "* ]]; }
perf_on=${ULEDSD_BENCH_PERF:-0}

pids=()
sims=()
cleanup() {
	local p n d
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || :; done
	rmmod ledsgpio_floor 2>/dev/null || :
	cp "$work"/*.log "$logs/" 2>/dev/null || :
	for n in "${sims[@]}"; do
		d=/sys/kernel/config/gpio-sim/$n
		echo 0 >"$d/live" 2>/dev/null || :
		rmdir "$d"/bank0/line* "$d/bank0" "$d" 2>/dev/null || :
	done
	rm -rf "$work"
}
trap cleanup EXIT

# stop PID: SIGTERM, then wait until it is gone (its LEDs go with it).
stop() {
	local i
	kill "$1" 2>/dev/null || return 0
	for i in $(seq 200); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	kill -9 "$1" 2>/dev/null || :
}

# sim NAME NLINES: a gpio-sim chip labelled NAME; sets SIM_CHIP (gpiochipN), SIM_LINE
# (prefix of the lines' sysfs dirs: append N).
sim() {
	local d=/sys/kernel/config/gpio-sim/$1
	mkdir "$d" "$d/bank0"
	sims+=("$1")
	echo "$2" >"$d/bank0/num_lines"
	echo "$1" >"$d/bank0/label"
	echo 1 >"$d/live"
	SIM_CHIP=$(cat "$d/bank0/chip_name")
	SIM_LINE=/sys/devices/platform/$(cat "$d/dev_name")/$SIM_CHIP/sim_gpio
	for _ in $(seq 100); do [ -c "/dev/$SIM_CHIP" ] && return 0; sleep 0.05; done
	echo "bench: /dev/$SIM_CHIP did not appear" >&2
	return 1
}

# conf DIR PREFIX COUNT BACKEND_LINES: COUNT LEDs PREFIX0.., %i in BACKEND_LINES = index.
conf() {
	local dir=$1 prefix=$2 count=$3 body=$4 i
	rm -rf "$dir"
	mkdir -p "$dir"
	for ((i = 0; i < count; i++)); do
		printf '[%s%u]\nmax_brightness = 255\n%s\n\n' "$prefix" "$i" "${body//%i/$i}"
	done >"$dir/10-bench.conf"
}

# spawn LABEL CMD...: start CMD (pinned to CPU 1) and time its READY=1; sets SPAWN_PID.
spawn() {
	local label=$1 line
	shift
	# The log on tmpfs: on the 9p build share each log line is a round trip to the host,
	# which start-up would pay for (under systemd it goes to the journal).
	line=$(M spawn "$label" -- taskset -c "$FWD_CPU" "$@" 2>>"$work/$label.log") || {
		log "$label did not start; its log:"
		tail -n 20 "$work/$label.log" >&2
		return 1
	}
	result "$line"
	SPAWN_PID=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' <<<"$line")
	pids+=("$SPAWN_PID")
}

# cputime PID: user + system clock ticks so far.
cputime() { local f; read -ra f <"/proc/$1/stat"; echo $((f[13] + f[14])); }

# settle PID...: wait until none of them used CPU for half a second (start-up work that
# goes on after READY=1, D-Bus traffic), at most 120 s.
settle() {
	local p before after i
	for ((i = 0; i < 240; i++)); do
		before=
		for p in "$@"; do before+=" $(cputime "$p")"; done
		sleep 0.5
		after=
		for p in "$@"; do after+=" $(cputime "$p")"; done
		[ "$before" = "$after" ] && return 0
	done
	log "settle: $* still busy after 120 s"
}

# profile NAME PID SECONDS: perf samples of PID while a measurement runs (ULEDSD_BENCH_PERF=1).
profile() {
	[ "$perf_on" = 1 ] || return 0
	perf record -q -e cpu-clock -F 2000 -g -p "$2" -o "$work/$1.data" -- sleep "$3" \
		>/dev/null 2>&1 &
	PERF_PID=$!
}
profile_report() {
	[ "$perf_on" = 1 ] || return 0
	wait "$PERF_PID" || :
	perf report -i "$work/$1.data" --stdio --no-children --percent-limit 1 \
		>"$build/bench/perf-$1.txt" 2>&1 || :
	log "perf profile of $1 in $build/bench/perf-$1.txt"
}

log "setting up: gpio-sim chips, dbus, leds-gpio"
echo 1 >/sys/devices/virtual/workqueue/cpumask
modprobe leds-gpio
sim bench 8
LAT_CHIP=$SIM_CHIP LAT_LINE=$SIM_LINE
sim benchu $BIG
U_CHIP=$SIM_CHIP U_LINE=$SIM_LINE
sim benchb $BIG
B_CHIP=$SIM_CHIP B_LINE=$SIM_LINE
if [ -n "$before" ]; then
	sim benchv $BIG
	V_CHIP=$SIM_CHIP V_LINE=$SIM_LINE
fi

mkdir -p /run/dbus /etc/dbus-1/system.d
cat >/etc/dbus-1/system.d/bench-uledsd.conf <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root"><allow own="io.uledsd1"/><allow send_destination="io.uledsd1"/></policy>
  <policy context="default"><allow receive_sender="io.uledsd1"/></policy>
</busconfig>
EOF
dbus_pid=$(taskset -c 1 dbus-daemon --system --fork --nopidfile --print-pid)
pids+=("$dbus_pid")
for _ in $(seq 100); do busctl --system list --no-pager >/dev/null 2>&1 && break; sleep 0.1; done

result "{\"kind\":\"meta\",\"kernel\":\"$(uname -r)\",\"cpus\":$(nproc),\"quick\":$quick}"

# --- scale: start-up time and RSS ----------------------------------------------------------
big_full_pid=
want scale || SCALES=
if [ -n "$SCALES" ]; then
	# exec, linking and READY=1 of a program that does nothing: 3 runs, the median is used.
	for i in 1 2 3; do
		spawn "trivial-$i" "$trivial"
		stop "$SPAWN_PID"
	done
fi
for n in $SCALES; do
	log "scale: $n LEDs"
	result "$(M register "$n")"
	# Only the LEDs: no backends, no bus (what the bare registration does, plus the config).
	conf "$work/plain" sp "$n" ""
	spawn "uledsd-plain-$n" "$uledsd" -c "$work/plain" -b none
	stop "$SPAWN_PID"
	if [ -n "$before" ]; then
		spawn "before-plain-$n" "$before" -c "$work/plain" -b none
		stop "$SPAWN_PID"
	fi
	# A deployment: every LED on a GPIO line (chip by label) and on D-Bus.
	conf "$work/full" sf "$n" "backends = gpio, dbus
gpio.chip = benchu
gpio.line = %i
gpio.share = yes"
	spawn "uledsd-full-$n" "$uledsd" -c "$work/full" -b system
	if [ "$n" = "$BIG" ]; then big_full_pid=$SPAWN_PID; else stop "$SPAWN_PID"; fi
	# The baseline's start-up: the same LEDs and line requests, nothing else.
	spawn "baseline-$n" "$baseline" "/dev/$B_CHIP" sb 0 "$n"
	stop "$SPAWN_PID"
done

# --- latency: one LED each, all three idle between their turns ------------------------------
if want latency; then
log "latency: uledsd, baseline, leds-gpio"
conf "$work/lat" "bench:uledsd" 1 "backends = gpio
gpio.chip = bench
gpio.line = 0"
sed -i 's/^\[bench:uledsd0\]/[bench:uledsd]/' "$work/lat/10-bench.conf"
spawn uledsd-lat "$uledsd" -c "$work/lat" -b system
lat_pid=$SPAWN_PID
spawn baseline-lat "$baseline" "/dev/$LAT_CHIP" bench:baseline 1
base_pid=$SPAWN_PID
before_pid=
if [ -n "$before" ]; then
	conf "$work/latv" "bench:before" 1 "backends = gpio
gpio.chip = bench
gpio.line = 3"
	sed -i 's/^\[bench:before0\]/[bench:before]/' "$work/latv/10-bench.conf"
	spawn before-lat "$before" -c "$work/latv" -b system
	before_pid=$SPAWN_PID
fi
insmod "$ULEDSD_KMOD_DIR/ledsgpio-floor.ko" chip=bench line=2 name=bench:floor
for _ in $(seq 100); do [ -e /sys/class/leds/bench:floor ] && break; sleep 0.05; done
[ -e /sys/class/leds/bench:floor ] || { log "leds-gpio did not bind bench:floor"; dmesg | tail >&2; exit 1; }

idle_args=("uledsd-1=$lat_pid" "baseline-1=$base_pid")
[ -n "$big_full_pid" ] && idle_args+=("uledsd-full-$BIG=$big_full_pid")
log "idle: ${IDLE_S} s"
settle "$lat_pid" "$base_pid" "$dbus_pid" ${big_full_pid:+"$big_full_pid"}
M idle "$IDLE_S" "${idle_args[@]}" | while read -r l; do result "$l"; done
[ -n "$big_full_pid" ] && stop "$big_full_pid"

L=/sys/class/leds
subjects=("uledsd,$L/bench:uledsd/brightness,${LAT_LINE}0/value"
	"baseline,$L/bench:baseline/brightness,${LAT_LINE}1/value"
	"leds-gpio,$L/bench:floor/brightness,${LAT_LINE}2/value")
[ -n "$before" ] && subjects+=("uledsd-before,$L/bench:before/brightness,${LAT_LINE}3/value")
M latency "$LAT_N" "$LAT_BLOCK" 1000 "${subjects[@]}" | while read -r l; do result "$l"; done
log "throughput, 1 LED (closed loop)"
M latency "$PP_N" "$LAT_BLOCK" 0 "${subjects[@]}" | while read -r l; do result "$l"; done
stop "$lat_pid"
stop "$base_pid"
[ -n "$before_pid" ] && stop "$before_pid"
rmmod ledsgpio_floor
fi

# --- throughput over many LEDs ---------------------------------------------------------------
if want batch; then
log "throughput, $BIG LEDs"
# gpio.share: the lines of the chip in requests of 64, a wakeup's changes in one ioctl each.
conf "$work/many" tu "$BIG" "backends = gpio
gpio.chip = benchu
gpio.line = %i
gpio.share = yes"
spawn "uledsd-many" "$uledsd" -c "$work/many" -b system
many_pid=$SPAWN_PID
spawn "baseline-many" "$baseline" "/dev/$B_CHIP" tb 0 "$BIG"
bmany_pid=$SPAWN_PID
batch_subjects=("uledsd,tu,$U_LINE,0,$many_pid" "baseline,tb,$B_LINE,0,$bmany_pid")
vmany_pid=
if [ -n "$before" ]; then
	conf "$work/manyv" tv "$BIG" "backends = gpio
gpio.chip = benchv
gpio.line = %i"
	spawn "before-many" "$before" -c "$work/manyv" -b system
	vmany_pid=$SPAWN_PID
	batch_subjects+=("uledsd-before,tv,$V_LINE,0,$vmany_pid")
fi
settle "$many_pid" "$bmany_pid" "$dbus_pid" ${vmany_pid:+"$vmany_pid"}
# Profiles (ULEDSD_BENCH_PERF=1) of untimed rounds: perf would slow the timed ones.
if [ "$perf_on" = 1 ]; then
	profile batch "$many_pid" 20
	sleep 3 # perf attaches
	M batch "$BIG" 8 1 "uledsd,tu,$U_LINE,0" >/dev/null
	profile_report batch
	if [ -n "$vmany_pid" ]; then
		profile batch-before "$vmany_pid" 20
		sleep 3
		M batch "$BIG" 8 1 "uledsd-before,tv,$V_LINE,0" >/dev/null
		profile_report batch-before
	fi
fi
# Syscalls per forwarded change (strace -c), one block each, outside the timed runs.
strace_c() {
	local label=$1 pid=$2 spec=$3
	strace -c -f -p "$pid" -o "$work/strace-$label.txt" &
	local sp=$!
	sleep 1
	M batch "$BIG" 1 1 "$spec" >/dev/null
	kill -INT "$sp"; wait "$sp" 2>/dev/null || :
	local calls
	calls=$(awk '$NF == "total" { print $4 }' "$work/strace-$label.txt")
	local changes=$BIG # one round: every LED changes once (gpio.share: fewer ioctls)
	cp "$work/strace-$label.txt" "$build/bench/strace-$label.txt"
	result "{\"kind\":\"syscalls\",\"subject\":\"$label\",\"changes\":${changes:-0},\"calls\":${calls:-0}}"
}
if command -v strace >/dev/null; then
	strace_c uledsd "$many_pid" "uledsd,tu,$U_LINE,0"
	strace_c baseline "$bmany_pid" "baseline,tb,$B_LINE,0"
	[ -n "$vmany_pid" ] && strace_c uledsd-before "$vmany_pid" "uledsd-before,tv,$V_LINE,0"
fi
M batch "$BIG" "$BATCH_ROUNDS" "$BATCH_BLOCKS" "${batch_subjects[@]}" |
	while read -r l; do result "$l"; done
stop "$many_pid"
stop "$bmany_pid"
[ -n "$vmany_pid" ] && stop "$vmany_pid"
fi

# --- 10 000 LEDs: start-up, RSS, a full round, a reload that changes one LED ---------------
if want huge && [ "$HUGE" -gt 0 ]; then
	log "scale: $HUGE LEDs"
	result "$(M register "$HUGE")"
	conf "$work/huge" hp "$HUGE" ""
	spawn "uledsd-plain-$HUGE" "$uledsd" -c "$work/huge" -b none
	stop "$SPAWN_PID"
	# gpio-sim allows 1024 lines a chip (GPIO_SIM_NGPIO_MAX): chips benchh0.. of 1000 lines.
	H_LINE=
	for ((c = 0; c * 1000 < HUGE; c++)); do
		sim "benchh$c" 1000
		H_LINE+="${H_LINE:+|}$SIM_LINE"
	done
	rm -rf "$work/hugeg" && mkdir -p "$work/hugeg"
	for ((i = 0; i < HUGE; i++)); do
		printf '[hg%u]\nmax_brightness = 255\nbackends = gpio\ngpio.chip = benchh%u\ngpio.line = %u\ngpio.share = yes\n\n' \
			"$i" $((i / 1000)) $((i % 1000))
	done >"$work/hugeg/10-bench.conf"
	spawn "uledsd-gpio-$HUGE" "$uledsd" -c "$work/hugeg" -b none
	huge_pid=$SPAWN_PID
	settle "$huge_pid"
	M batch "$HUGE" 1 1 "uledsd,hg,$H_LINE,0,$huge_pid" |
		sed 's/"kind":"batch"/"kind":"huge-round"/' | while read -r l; do result "$l"; done
	# Reload with one LED's settings changed: the others are compared and left alone.
	sed -i '0,/^gpio.line = 0$/s//gpio.line = 0\ntrigger = default-on/' "$work/hugeg/10-bench.conf"
	reloads0=$(grep -c '^Reloaded' "$work/uledsd-gpio-$HUGE.log" || :)
	updated0=$(grep -c 'updating in place' "$work/uledsd-gpio-$HUGE.log" || :)
	t0=$(date +%s%N)
	kill -HUP "$huge_pid"
	for _ in $(seq 6000); do
		[ "$(grep -c '^Reloaded' "$work/uledsd-gpio-$HUGE.log" || :)" -gt "$reloads0" ] && break
		sleep 0.01
	done
	t1=$(date +%s%N)
	updated=$(($(grep -c 'updating in place' "$work/uledsd-gpio-$HUGE.log" || :) - updated0))
	result "{\"kind\":\"huge-reload\",\"leds\":$HUGE,\"usec\":$(((t1 - t0) / 1000)),\"updated\":$updated,\"rss_kib\":$(awk '/VmRSS/ { print $2 }' "/proc/$huge_pid/status")}"
	stop "$huge_pid"
fi

# --- event mode vs latest-value mode: CPU per forwarded transition ---------------------------
if want modes; then
log "event mode vs latest-value mode (events = no), 1 LED each"
# oncpu PID: ns on a CPU so far (schedstat: finer than stat's clock ticks).
oncpu() { local a; read -ra a <"/proc/$1/schedstat"; echo "${a[0]}"; }
for mode in event latest; do
	conf "$work/mode-$mode" "bench:$mode" 1 "backends = gpio
gpio.chip = bench
gpio.line = $([ $mode = event ] && echo 3 || echo 4)
$([ $mode = latest ] && echo 'events = no')"
	sed -i "s/^\[bench:${mode}0\]/[bench:$mode]/" "$work/mode-$mode/10-bench.conf"
	spawn "uledsd-$mode" "$uledsd" -c "$work/mode-$mode" -b none
	eval "${mode}_pid=$SPAWN_PID"
done
settle "$event_pid" "$latest_pid"
ev0=$(oncpu "$event_pid") lv0=$(oncpu "$latest_pid")
M latency "$PP_N" "$LAT_BLOCK" 0 "uledsd-event,/sys/class/leds/bench:event/brightness,${LAT_LINE}3/value" \
	"uledsd-latest,/sys/class/leds/bench:latest/brightness,${LAT_LINE}4/value" | while read -r l; do result "$l"; done
result "{\"kind\":\"modes\",\"changes\":$PP_N,\"event_cpu_ns\":$(($(oncpu "$event_pid") - ev0)),\"latest_cpu_ns\":$(($(oncpu "$latest_pid") - lv0))}"
stop "$event_pid"
stop "$latest_pid"
fi

# --- D-Bus flood ----------------------------------------------------------------------------
want dbus || rates=
for rate in ${rates-default 1000}; do
	log "dbus flood, max_rate $rate"
	body="backends = dbus"
	[ "$rate" != default ] && body+=$'\n'"dbus.max_rate = $rate"
	conf "$work/dbus" df 10 "$body"
	spawn "uledsd-dbus-$rate" "$uledsd" -c "$work/dbus" -b system
	settle "$SPAWN_PID" "$dbus_pid"
	# The reader of the signals on CPU 1 (with dbus-daemon); the writer thread takes CPU 0.
	l=$(taskset -c 1 "$measure" dbus "$FLOOD_S" "$SPAWN_PID" df 10)
	result "${l%\}},\"max_rate\":\"$rate\"}"
	stop "$SPAWN_PID"
done
log "done"
