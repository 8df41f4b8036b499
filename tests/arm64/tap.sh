# SPDX-License-Identifier: MIT
# TAP for the arm64 guests' busybox/dash shells (guest-test.sh, guest-deb.sh): numbered
# ok/not ok lines; $failed counts the failures, the guest's exit status.
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
