#!/bin/bash
# SPDX-License-Identifier: MIT
# Recording the kernel's own triggers on a real kernel, uledsd and dbus-daemon: the pattern
# trigger's step pattern comes out as the same sequence (no interpolated levels, each step's
# duration from the kernel's timestamps), and the netdev trigger on a dummy interface shows
# activity while packets go out and none when they stop.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_bin) || exit 1
ctl=$ULEDSD_BUILD_ROOT/ctl/uledsctl
work=$(mktemp -d)
L=/sys/class/leds
PAT=trig:green:pattern
NET=trig:amber:netdev

for m in ledtrig-pattern ledtrig-netdev dummy; do
	assert_true "modprobe $m" modprobe "$m" || exit 1
done
mkdir "$work/conf"
cat >"$work/conf/10-trig.conf" <<C
[$PAT]
max_brightness = 255
backends = log

[$NET]
max_brightness = 1
backends = log
C
start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$uledsd" --bus system --config-dir "$work/conf" 2>"$work/log"
assert_true "uledsd is on the bus" wait_for 20 sh -c "busctl --system list | grep -q io.uledsd1"
assert_true "the LEDs exist" wait_for 10 test -e "$L/$NET/trigger"

record_bg() { # OUT ARGS...: uledsctl record in the background ($REC_PID), once it records
	local out=$1
	shift
	"$ctl" --bus system record "$@" --format json >"$out" 2>"$out.err" &
	REC_PID=$!
	wait_for 20 grep -q '^Recording' "$out.err"
}
record_end() {
	kill -INT "$REC_PID"
	wait "$REC_PID"
}

# --- pattern: a step pattern (zero-duration steps) is recorded as exactly that ---------------
# "255 80 255 0 0 120 0 0": 255 for 80 ms, a step to 0, 0 for 120 ms, a step to 255. A
# pattern with durations on the steps would be interpolated every 50 ms (levels between).
echo pattern >"$L/$PAT/trigger"
record_bg "$work/pat.json" $PAT
echo 4 >"$L/$PAT/repeat"
echo "255 80 255 0 0 120 0 0" >"$L/$PAT/pattern"
wait_for 10 sh -c "[ \$(grep -c '\"value\":' $work/pat.json) -ge 8 ]"
sleep 0.5
record_end
values=$(jq -r 'select(.led) | .value' "$work/pat.json" | sort -u | xargs)
assert_eq "0 255" "$values" "only the pattern's two levels, no interpolated ones"
seq=$(jq -r 'select(.led) | .value' "$work/pat.json" | xargs)
echo "# pattern sequence: $seq"
assert_true "levels alternate 255/0, starting with 255 ($seq)" \
	sh -c "echo '$seq' | grep -Eq '^255( 0 255)*( 0)?\$'"
n=$(jq -r 'select(.summary) | .summary[0].transitions' "$work/pat.json")
assert_true "repeat = 4: 7 or 8 transitions (the last step back to 0 ends it) ($n)" \
	test "$n" -ge 7 -a "$n" -le 8
# HZ=250: a step of ms lasts at least ms and up to (ceil(ms/4)+1)*4 ms; a guest starved by a
# loaded host (TCG) runs its timers later still, so the upper bound is loose: the exact
# durations are the timer test's business (test-record.sh), here the order and the shape.
on=$(jq -r 'select(.summary) | .summary[0].on.median_us' "$work/pat.json")
off=$(jq -r 'select(.summary) | .summary[0].off.median_us' "$work/pat.json")
echo "# pattern: on median $on us (80 ms asked), off median $off us (120 ms asked)"
assert_true "on-time median $on us: 80 ms or a little more" test "$on" -ge 79000 -a "$on" -le 130000
assert_true "off-time median $off us: 120 ms or a little more" test "$off" -ge 119000 -a "$off" -le 170000
assert_true "the 120 ms step lasts longer than the 80 ms one" test "$off" -gt "$on"

# --- netdev: tx activity on a dummy interface ---------------------------------------------
ip link add uledsd0 type dummy
# No IPv6 on it: router solicitations and DAD would be traffic of their own.
echo 1 >/proc/sys/net/ipv6/conf/uledsd0/disable_ipv6
ip addr add 10.77.0.1/24 dev uledsd0
ip link set uledsd0 up
echo netdev >"$L/$NET/trigger"
echo uledsd0 >"$L/$NET/device_name"
echo 1 >"$L/$NET/tx"
echo 20 >"$L/$NET/interval"
# Quiet first: no packets, no activity.
record_bg "$work/quiet.json" $NET
sleep 1
record_end
quiet=$(jq -r 'select(.summary) | .summary[0].transitions' "$work/quiet.json")
assert_eq 0 "$quiet" "netdev, no traffic: no transitions"
record_bg "$work/net.json" $NET
for _ in $(seq 60); do
	echo x >/dev/udp/10.77.0.2/9 2>/dev/null
	_lib_sleep 0.02
done
record_end
busy=$(jq -r 'select(.summary) | .summary[0].transitions' "$work/net.json")
echo "# netdev on uledsd0, 60 packets 20 ms apart, interval 20 ms: $busy transitions"
assert_true "netdev, tx traffic: activity recorded ($busy transitions)" test "$busy" -ge 6
assert_true "the packets went out on uledsd0" \
	test "$(cat /sys/class/net/uledsd0/statistics/tx_packets)" -ge 60
assert_eq "" "$(grep -v '^Ready: ' "$work/log" | grep -i 'error\|warn')" "no error or warning from uledsd"
