#!/bin/bash
# SPDX-License-Identifier: MIT
# The benchmark's systemd part (issue 19), in the test VM with systemd 252 as PID 1 (run by
# bench/run.sh through tests/kernel/vm-run.sh --systemd): start-up under systemd with every
# LED fd in its fd store, the fd store's count, PID 1's wakeups while LEDs change, the stop.
# Appends JSON lines to $ULEDSD_BUILD_ROOT/bench/results.jsonl.
set -euo pipefail

build=$ULEDSD_BUILD_ROOT
out=${ULEDSD_BENCH_OUT:-$build/bench/results.jsonl}
quick=${ULEDSD_BENCH_QUICK:-0}
sizes="1000 ${ULEDSD_BENCH_HUGE:-10000}"
[ "$quick" = 1 ] && sizes="100 1000"
before=$build/bench/before/uledsd
subjects="uledsd=$build/daemon/uledsd"
[ -x "$before" ] && subjects+=" uledsd-before=$before"
work=$(mktemp -d)
only_sizes=${ULEDSD_BENCH_SYSTEMD_SIZES:-}
[ -n "$only_sizes" ] && sizes=$only_sizes

log() { echo "bench-systemd: $*" >&2; }
result() { echo "$1" | tee -a "$out"; }
usec() { echo $(($(date +%s%N) / 1000)); }
pid1_switches() { awk '/ctxt_switches/ { n += $2 } END { print n }' /proc/1/status; }

conf() {
	local dir=$1 prefix=$2 count=$3 i
	rm -rf "$dir"
	mkdir -p "$dir"
	for ((i = 0; i < count; i++)); do
		printf '[%s%u]\nmax_brightness = 255\n\n' "$prefix" "$i"
	done >"$dir/10-bench.conf"
}

# Changes COUNT LEDs PREFIX0.. once each (a sysfs write, as a trigger or user would).
flood() {
	local prefix=$1 count=$2 level=$3 i
	for ((i = 0; i < count; i++)); do
		echo "$level" >"/sys/class/leds/$prefix$i/brightness"
	done
}

timeout 120 systemctl is-system-running --wait >/dev/null || :
for n in $sizes; do
	conf "$work/c$n" "s${n}x" "$n"
	for subj in $subjects; do
		label=${subj%%=*} bin=${subj#*=}
		# One datagram and PID 1 kcmp() against every stored fd per LED: only up to 1000.
		[ "$label" = uledsd-before ] && [ "$n" -gt 1000 ] && continue
		unit=bench-$label-$n
		log "$label, $n LEDs under systemd"
		t0=$(usec)
		# systemd-run returns when the start job is done: at READY=1, which uledsd sends
		# once every LED is in the store (the uleds group's one fd, or each LED's fd).
		systemd-run --quiet --unit="$unit" -p Type=notify -p FileDescriptorStoreMax=16384 \
			-p LimitNOFILE=65536 -p TimeoutStartSec=1500 -p Restart=on-failure \
			-p RestartSec=100ms "$bin" -c "$work/c$n" -b none
		t1=$(usec)
		pid=$(systemctl show -P MainPID "$unit")
		stored=$(systemctl show -P NFileDescriptorStore "$unit")
		t2=$(usec)
		rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
		sleep 2
		# PID 1's context switches while M LEDs change (and 1 s after), then over as long
		# with nothing changing: the difference is what the changes cost it.
		m=$((n < 1000 ? n : 1000))
		a=$(pid1_switches) ta=$(usec)
		flood "s${n}x" "$m" 1
		sleep 1
		c=$(pid1_switches) tc=$(usec)
		sleep "$(awk -v u=$((tc - ta)) 'BEGIN { print u / 1e6 }')"
		d=$(pid1_switches)
		flood "s${n}x" "$m" 0
		# A crash: systemd restarts it, and it adopts what the store kept.
		k0=$(usec)
		kill -9 "$pid"
		for _ in $(seq 6000); do
			{ read -r p2; read -r st; } < <(systemctl show -p MainPID -p ActiveState --value "$unit")
			[ "$p2" != "$pid" ] && [ "$p2" != 0 ] && [ "$st" = active ] && break
			sleep 0.1
		done
		k1=$(usec)
		adopted=$(journalctl -u "$unit" _PID="$p2" -o cat --no-pager |
			sed -n 's/^fd store: \([0-9]*\) LEDs\{0,1\} kept by systemd.*/\1/p' | tail -n1)
		present=$(ls /sys/class/leds | grep -c "^s${n}x" || :)
		t3=$(usec)
		systemctl stop "$unit"
		t4=$(usec)
		left=$(ls /sys/class/leds | grep -c "^s${n}x" || :)
		result "{\"kind\":\"systemd\",\"subject\":\"$label\",\"leds\":$n,\"start_usec\":$((t1 - t0)),\"stored\":$stored,\"stored_usec\":$((t2 - t0)),\"rss_kib\":${rss:-0},\"changes\":$m,\"pid1_switches\":$((c - a)),\"pid1_idle_switches\":$((d - c)),\"window_usec\":$((tc - ta)),\"stop_usec\":$((t4 - t3)),\"left\":$left,\"crash_adopted\":${adopted:-0},\"crash_present\":$present,\"crash_usec\":$((k1 - k0))}"
	done
done
log "done"
