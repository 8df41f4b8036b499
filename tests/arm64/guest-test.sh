# SPDX-License-Identifier: MIT
# The arm64 boot test (issue 32), run by tests/arm64/init with busybox sh on Debian's arm64
# kernel under qemu-system-aarch64. All in one boot:
#   1. uleds.ko and gpio-sim.ko (built for arm64 by tests/cross-arm64.sh) load;
#   2. the uleds ABI conformance test passes from aarch64 and from armhf user space (32-bit
#      compat ioctls and record sizes), both static;
#   3. a short torture test passes, and the kernel log stays clean;
#   4. uledsd (cross-built, dynamic: the host's :arm64 libraries) with the gpio and log
#      backends: a written brightness reaches a gpio-sim line, and an LED with the timer
#      trigger toggles it, read back from gpio-sim's sysfs;
#   5. uledsd stops on SIGTERM with exit 0 and takes its LEDs with it, and rmmod uleds works.
# usage: guest-test.sh SRC BUILD   (the source tree and the arm64 build dir, as the guest
#                                   sees them: /host/...)
# TAP on the console; the exit status is the number of failed checks.
S=$1 B=$2
T=$B/arm64-tests
M=$B/arm64-modules
L=/sys/class/leds
# shellcheck source=tests/arm64/tap.sh
. "$S/tests/arm64/tap.sh"
elapsed() { read -r now _ </proc/uptime; echo "$now - $1" | awk '{ printf "%.1f", $1 - $3 }'; }
# wait_for SECONDS COMMAND...: polls every 50 ms.
wait_for() {
	i=$(($1 * 20))
	shift
	while [ $i -gt 0 ]; do
		"$@" && return 0
		usleep 50000
		i=$((i - 1))
	done
	return 1
}
# clean_log MARKER: no warning, oops or lockup in the kernel log since MARKER.
clean_log() {
	bad=$(dmesg | sed -n "/$1/,\$p" | grep -E 'WARNING|BUG|Oops|Unable to handle|Internal error|Call trace|alignment|list_(add|del) corruption|refcount_t|UBSAN|blocked for more than|circular locking|sleeping function called')
	[ -z "$bad" ] || { echo "$bad" | head -n 20 | sed 's/^/# /'; return 1; }
}

echo "# $(uname -srm), $(grep -c ^processor /proc/cpuinfo) CPUs"
check "the kernel is aarch64" [ "$(uname -m)" = aarch64 ]
marker="uledsd-arm64: start"
echo "$marker" >/dev/kmsg

# --- 1. the modules ---------------------------------------------------------------------
modprobe configfs 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
for m in ledtrig-timer ledtrig-heartbeat ledtrig-oneshot ledtrig-transient ledtrig-pattern; do
	modprobe "$m" || not_ok "modprobe $m"
done
check "uleds.ko (arm64) loads" insmod "$M/uleds.ko"
check "gpio-sim.ko (arm64) loads" insmod "$M/gpio-sim.ko"
check "/dev/uleds exists" [ -c /dev/uleds ]

# --- 2. ABI conformance, 64-bit and 32-bit user space ----------------------------------------
# The conformance test counts the modprobe calls the kernel starts (request_module).
printf '#!/bin/sh\necho "$*" >>/run/modprobe.log\nexec /sbin/modprobe "$@"\n' >/run/modprobe-log
chmod +x /run/modprobe-log
: >/run/modprobe.log
echo /run/modprobe-log >/proc/sys/kernel/modprobe
for abi in aarch64 armhf; do
	read -r t0 _ </proc/uptime
	ULEDS_ABI_MODPROBE_LOG=/run/modprobe.log "$T/uleds-abi-$abi" /dev/uleds >/run/abi.log 2>&1
	rc=$?
	[ $rc = 0 ] || grep -E '^not ok' /run/abi.log | head -n 20 | sed 's/^/# /'
	check "the uleds ABI conformance test passes from $abi user space ($(grep 'passed,' /run/abi.log | tail -n 1), $(elapsed "$t0") s)" [ $rc = 0 ]
done
echo /sbin/modprobe >/proc/sys/kernel/modprobe

# --- 3. torture ---------------------------------------------------------------------------
echo 10 >/proc/sys/kernel/hung_task_timeout_secs
read -r t0 _ </proc/uptime
"$T/uleds-torture-aarch64" "${ULEDSD_ARM64_TORTURE_SECONDS:-15}" >/run/torture.log 2>&1
rc=$?
tail -n "$([ $rc = 0 ] && echo 3 || echo 30)" /run/torture.log | sed 's/^/# /'
check "the torture test passes ($(elapsed "$t0") s)" [ $rc = 0 ]
check "no tort-* LED is left" [ -z "$(ls $L | grep '^tort-')" ]

# --- 4. uledsd with the gpio and log backends ---------------------------------------------
g=/sys/kernel/config/gpio-sim/arm64
mkdir $g $g/bank0
echo 8 >$g/bank0/num_lines
echo 1 >$g/live
chip=$(cat $g/bank0/chip_name)
sim=$(ls -d /sys/devices/platform/gpio-sim.*/"$chip" | head -n 1)
check "gpio-sim made $chip" [ -e "$sim/sim_gpio0/value" ]
mkdir -p /tmp/conf /tmp/state
cat >/tmp/conf/10-arm64.conf <<EOF
[arm64:green:status]
backends = gpio, log
gpio.chip = $chip
gpio.line = 0

[arm64:red:timer]
backends = gpio, log
gpio.chip = $chip
gpio.line = 1
trigger = timer
trigger.delay_on = 100
trigger.delay_off = 100
EOF
check "uledsd --check-config accepts the configuration" \
	"$B/daemon/uledsd" --check-config --bus none --config-dir /tmp/conf
read -r t0 _ </proc/uptime
"$B/daemon/uledsd" --bus none --config-dir /tmp/conf --state-dir /tmp/state --log-level info \
	>/run/uledsd.log 2>&1 &
pid=$!
wait_for 20 [ -e $L/arm64:red:timer -a -e $L/arm64:green:status ]
check "uledsd (aarch64, dynamic) creates its LEDs ($(elapsed "$t0") s)" [ -e $L/arm64:red:timer -a -e $L/arm64:green:status ]
line_is() { [ "$(cat "$sim/sim_gpio$1/value")" = "$2" ]; }
echo 1 >$L/arm64:green:status/brightness
check "brightness 1 drives gpio-sim line 0 high" wait_for 5 line_is 0 1
echo 0 >$L/arm64:green:status/brightness
check "brightness 0 drives line 0 low" wait_for 5 line_is 0 0
# The timer trigger at 100/100 ms: sample line 1 for 3 s.
changes=0 last=
i=0
while [ $i -lt 60 ]; do
	v=$(cat "$sim/sim_gpio1/value")
	[ -n "$last" ] && [ "$v" != "$last" ] && changes=$((changes + 1))
	last=$v
	usleep 50000
	i=$((i + 1))
done
check "the timer trigger toggles gpio-sim line 1 ($changes changes in 60 samples)" [ $changes -ge 6 ]
check "the log backend reports the LEDs" grep -q 'arm64:green:status' /run/uledsd.log
kill -TERM $pid
wait $pid
rc=$?
check "uledsd exits 0 on SIGTERM" [ $rc = 0 ]
[ $rc = 0 ] || tail -n 20 /run/uledsd.log | sed 's/^/# /'
check "its LEDs are gone" [ ! -e $L/arm64:red:timer ]
check "rmmod uleds succeeds" rmmod uleds
check "the kernel log has no warning, oops or alignment fault" clean_log "$marker"
echo "# $((n - failed)) passed, $failed failed"
exit $failed
