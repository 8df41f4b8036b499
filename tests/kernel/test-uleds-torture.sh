#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of the uleds torture test: runs uleds-torture for SECONDS with the hung-task
# detector at 10 s, then requires a clean kernel log (no BUG, WARNING, Oops, list
# corruption or hung task), no LED left behind, and `rmmod uleds` to succeed.
#
# usage (as root, in the test VM, with uleds.ko loaded):
#   test-uleds-torture.sh TORTURE_BIN [SECONDS]
set -u

bin=${1:?usage: test-uleds-torture.sh TORTURE_BIN [SECONDS]}
seconds=${2:-60}
failed=0

fail() {
	echo "test-uleds-torture: FAIL: $*"
	failed=1
}

[ -x "$bin" ] || { echo "test-uleds-torture: $bin is not an executable"; exit 1; }
[ -c /dev/uleds ] || { echo "test-uleds-torture: /dev/uleds does not exist: is uleds.ko loaded?"; exit 1; }
for m in ledtrig-timer ledtrig-heartbeat ledtrig-oneshot ledtrig-transient ledtrig-pattern; do
	modprobe "$m" || { echo "test-uleds-torture: modprobe $m failed"; exit 1; }
done

# A task stuck in D state for 10 s is reported (Debian's default is 120 s).
if [ -w /proc/sys/kernel/hung_task_timeout_secs ]; then
	echo 10 >/proc/sys/kernel/hung_task_timeout_secs
else
	fail "no hung-task detector in this kernel (CONFIG_DETECT_HUNG_TASK)"
fi

marker="uleds-torture: start $$"
echo "$marker" >/dev/kmsg
"$bin" "$seconds"
rc=$?
[ "$rc" = 0 ] || fail "uleds-torture exited $rc"
# Give the detector one period to report anything stuck at the end.
sleep 11

left=$(find /sys/class/leds -maxdepth 1 -name 'tort-*' | wc -l)
[ "$left" = 0 ] || fail "$left tort-* LEDs are left"
if ! rmmod uleds; then
	fail "rmmod uleds failed: $(cat /sys/module/uleds/refcnt 2>/dev/null) references left"
fi

log=$(dmesg | sed -n "/$marker/,\$p")
bad=$(echo "$log" | grep -E 'WARNING|BUG|Oops|general protection|Call Trace|list_(add|del) corruption|refcount_t|UBSAN|KASAN|blocked for more than|hung_task|circular locking|sleeping function called' || true)
if [ -n "$bad" ]; then
	fail "the kernel log has errors since the torture started:"
	echo "$log" | tail -n 80 | sed 's/^/    /'
fi

if [ "$failed" = 0 ]; then
	echo "test-uleds-torture: PASS"
	exit 0
fi
exit 1
