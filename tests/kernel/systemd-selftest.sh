#!/bin/bash
# SPDX-License-Identifier: MIT
# Harness self-test (guest, vm-run.sh --systemd): systemd is PID 1 and finishes booting.
. "$(dirname "$0")/lib.sh"

assert_eq systemd "$(cat /proc/1/comm)" "PID 1 is systemd"
state=$(timeout 90 systemctl is-system-running --wait)
case $state in
running | degraded) pass "systemctl is-system-running reached '$state'" ;;
*) fail "systemctl is-system-running says '$state', expected running or degraded" ;;
esac
echo "# failed units:"
systemctl --failed --no-legend --plain --no-pager | sed 's/^/#   /'
assert_eq none "$(systemd-detect-virt --container)" "systemd does not think it runs in a container"
assert_true "the system bus answers (dbus.socket)" sh -c "busctl --system list --no-pager >/dev/null"
assert_true "/dev/uleds exists" test -c /dev/uleds
assert_true "modprobe@uleds.service succeeds" systemctl start modprobe@uleds.service
assert_true "/tmp is a tmpfs" sh -c '[ "$(stat -f -c %T /tmp)" = tmpfs ]'
assert_true "the build dir is writable" touch "$ULEDSD_BUILD_ROOT/.vm-write-test"
rm -f "$ULEDSD_BUILD_ROOT/.vm-write-test"
echo "# startup: $(systemd-analyze time 2>/dev/null | head -n1)"
