#!/bin/bash
# SPDX-License-Identifier: MIT
# Host side: vm-run.sh passes the guest script's exit code through unchanged, and uses 99
# only for infrastructure errors.
# usage: check-exit-code.sh VM_RUN FAILING_SCRIPT   (FAILING_SCRIPT exits 1 in the guest)
set -u
vm_run=$1 failing=$2
failed=0

check() { # check EXPECTED WHAT CMD...
	local expected=$1 what=$2 rc
	shift 2
	"$@"
	rc=$?
	if [ "$rc" = "$expected" ]; then
		echo "ok - $what: exit code $rc"
	else
		echo "not ok - $what: expected exit code $expected, got $rc"
		failed=1
	fi
}

check 99 "a missing script is an infrastructure error" "$vm_run" /nonexistent/test.sh
check 1 "a failing guest script gives its own exit code (not 99)" "$vm_run" "$failing"
exit $failed
