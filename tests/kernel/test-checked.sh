#!/bin/bash
# SPDX-License-Identifier: MIT
# Other kernel tests, in one boot, with uledsd watched by a memory checker; any report fails.
#   sanitizers: the build (ULEDSD_BUILD_ROOT) has -Db_sanitize=address,undefined; ASan, LSan
#               (detect_leaks) and UBSan write reports to files, halt_on_error on all of them.
#   valgrind:   uledsd runs under valgrind memcheck; a definite leak or any error is a report.
# Plain mode (no systemd unit): LSan stops threads with ptrace, which the unit's
# SystemCallFilter=@system-service forbids, and valgrind needs MemoryDenyWriteExecute off.
# usage: test-checked.sh sanitizers|valgrind SCRIPT...
. "$(dirname "$0")/lib.sh"

mode=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
reports=$ULEDSD_BUILD_ROOT/checked-reports-$mode
rm -rf "$reports"
mkdir -p "$reports"
real=$(uledsd_bin) || exit 1

# Timing checks allow for the checker's slowdown where they say so (grep ULEDSD_CHECKED), and
# every wait_for waits ULEDSD_TIME_SCALE times longer (lib.sh).
export ULEDSD_CHECKED=$mode
case $mode in
sanitizers)
	# exitcode: a leak found at exit also makes uledsd's exit status fail its test.
	export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=86:log_path=$reports/asan"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan"
	export LSAN_OPTIONS="exitcode=86"
	export ULEDSD_TIME_SCALE=5
	nm "$real" | grep -q __asan_init || { fail "$real is not built with -Db_sanitize=address"; exit 1; }
	;;
valgrind)
	# The test scripts run $ULEDSD_BIN; this wrapper execs valgrind (same pid, so their
	# kill and wait work unchanged). It lives in the writable build dir.
	wrapper=$reports/uledsd-valgrind
	cat >"$wrapper" <<W
#!/bin/sh
exec valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=86 \\
	--log-file=$reports/valgrind.%p "$real" "\$@"
W
	chmod +x "$wrapper"
	export ULEDSD_BIN=$wrapper ULEDSD_TIME_SCALE=10
	;;
*)
	fail "unknown mode '$mode'"
	exit 1
	;;
esac

# No uledsd (or its checker) left from the last script: its exit is where leaks are found.
uledsd_gone() { ! pgrep -f "$real" >/dev/null; }

for s in "$@"; do
	echo "# --- $s under $mode"
	bash "$here/$s"
	assert_eq 0 $? "$s passes with uledsd under $mode"
	wait_for 30 uledsd_gone || fail "uledsd still runs 30 s after $s ended"
done

# Reports of processes that found nothing are empty files (valgrind --quiet).
n=0
for f in "$reports"/asan.* "$reports"/ubsan.* "$reports"/valgrind.*; do
	[ -s "$f" ] || continue
	n=$((n + 1))
	echo "# ---- $f"
	cat "$f"
done
assert_eq 0 "$n" "no $mode report from uledsd (files in $reports)"
