#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# On the 6.1 kernel (vm-run-6.1.sh): the uleds ABI conformance test (64- and 32-bit), the
# torture test, uledsd's core test (test-core.sh), then the pwm backend's (test-pwm.sh), in one
# boot. 6.1 lacks LED_REJECT_NAME_CONFLICT: the module's own name checks are what these
# exercise there; its PWM core refuses writes 6.12 takes (a period of 0, a duty cycle above the
# period), which is what the pwm backend's write order is for.
# usage: test-kmod-6.1.sh ULEDS_ABI ULEDS_ABI_32 ULEDS_TORTURE SECONDS
set -u
here=$(dirname "$0")
echo "test-kmod-6.1: kernel $(uname -r)"
case $(uname -r) in 6.1.*) ;; *) echo "test-kmod-6.1: FAIL: not a 6.1 kernel"; exit 1 ;; esac
rc=0
bash "$here/test-uleds-abi.sh" "$1" "$2" || rc=1
# test-uleds-abi.sh ends with uleds reloaded; the torture needs it loaded, and unloads it.
[ -c /dev/uleds ] || modprobe uleds || rc=1
bash "$here/test-uleds-torture.sh" "$3" "$4" || rc=1
# The daemon on 6.1 (issue 20): LEDs, triggers, reload, the name clash, exit.
[ -c /dev/uleds ] || modprobe uleds || rc=1
bash "$here/test-core.sh" || rc=1
# The pwm backend on 6.1 (issue 18): pwm-test.ko built for 6.1, the write order.
bash "$here/test-pwm.sh" || rc=1
exit $rc
