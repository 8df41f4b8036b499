#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of the uleds ABI conformance test: runs uleds-abi against /dev/uleds, checks
# that an open fd pins the module and that the kernel log stays clean, then unloads and
# reloads uleds to prove it leaves nothing behind.
#
# usage (as root, in the test VM, with uleds.ko loaded):
#   test-uleds-abi.sh [ULEDS_ABI_BIN [ULEDS_ABI_BIN_32]]   or  ULEDS_ABI_BIN=... test-uleds-abi.sh
# ULEDS_ABI_BIN_32, the same test built with -m32, runs after it: i386 user space on the
# 64-bit kernel must see the same record sizes and ioctl numbers (compat path).
set -u

bin=${1:-${ULEDS_ABI_BIN:-}}
bin32=${2:-}
dev=/dev/uleds
failed=0

fail() {
	echo "test-uleds-abi: FAIL: $*"
	failed=1
}

[ -n "$bin" ] || { echo "test-uleds-abi: usage: test-uleds-abi.sh ULEDS_ABI_BIN"; exit 2; }
[ -x "$bin" ] || { echo "test-uleds-abi: $bin is not an executable (build uleds-abi first)"; exit 1; }
[ -c "$dev" ] || { echo "test-uleds-abi: $dev does not exist: is uleds.ko loaded?"; exit 1; }
modprobe ledtrig-timer || { echo "test-uleds-abi: modprobe ledtrig-timer failed"; exit 1; }

# Everything the kernel logs from here on belongs to this test.
marker="uleds-abi: test start $$"
echo "$marker" >/dev/kmsg

# Count the modprobe calls the kernel starts (request_module) while uleds-abi runs.
modprobe_log=/run/uleds-abi-modprobe.log
old_modprobe=$(cat /proc/sys/kernel/modprobe)
: >"$modprobe_log"
cat >/run/uleds-abi-modprobe <<EOT
#!/bin/sh
echo "\$*" >>$modprobe_log
exec $old_modprobe "\$@"
EOT
chmod +x /run/uleds-abi-modprobe
echo /run/uleds-abi-modprobe >/proc/sys/kernel/modprobe

read -r start _ </proc/uptime
ULEDS_ABI_MODPROBE_LOG=$modprobe_log "$bin" "$dev"
rc=$?
if [ -n "$bin32" ]; then
	echo "test-uleds-abi: the same checks from a 32-bit process ($bin32)"
	ULEDS_ABI_MODPROBE_LOG=$modprobe_log "$bin32" "$dev" || rc=$((rc + 100))
fi
echo "$old_modprobe" >/proc/sys/kernel/modprobe
read -r end _ </proc/uptime
echo "test-uleds-abi: uleds-abi exited $rc after $(awk "BEGIN { print $end - $start }") s"
[ "$rc" = 0 ] || fail "uleds-abi reported failures (exit $rc)"

# An open fd holds a module reference: unloading must fail until it is closed.
if exec 3<>"$dev"; then
	if rmmod uleds 2>/dev/null; then
		fail "rmmod uleds succeeded while $dev was open"
		modprobe uleds
	fi
	exec 3>&-
else
	fail "cannot open $dev"
fi

# With every fd closed the module unloads cleanly, and loads again.
if rmmod uleds; then
	[ ! -e /sys/module/uleds ] || fail "/sys/module/uleds still exists after rmmod"
	modprobe uleds || fail "reloading uleds failed"
	[ -c "$dev" ] || fail "$dev did not come back after reloading uleds"
else
	fail "rmmod uleds failed with no fd open: $(cat /sys/module/uleds/refcnt 2>/dev/null) references left"
fi

# The kernel log since the marker: no warnings, bugs, lockups or leaks.
log=$(dmesg | sed -n "/$marker/,\$p")
bad=$(echo "$log" | grep -E 'WARNING|BUG|Oops|general protection|Call Trace|leak|refcount_t|list_(add|del) corruption|UBSAN|KASAN|blocked for more than|hung_task|circular locking|sleeping function called' || true)
if [ -n "$bad" ]; then
	fail "the kernel log has warnings since the test started:"
	echo "$bad" | sed 's/^/    /'
fi
if echo "$log" | grep -q "renamed to .* due to name collision"; then
	echo "test-uleds-abi: note: the LED core renamed an LED (6.1 fallback path hit):"
	echo "$log" | grep "renamed to" | sed 's/^/    /'
fi

if [ "$failed" = 0 ]; then
	echo "test-uleds-abi: PASS"
	exit 0
fi
exit 1
