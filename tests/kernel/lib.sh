# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Helpers for test scripts that run inside the test VM (source it: . "$(dirname "$0")/lib.sh").
#
# Results:     pass MSG | fail MSG | assert_eq EXPECTED ACTUAL WHAT | assert_true WHAT CMD...
#              wait_for TIMEOUT_S CMD...   (polls CMD every 50 ms; 0 once it succeeds)
#              at exit: "N passed, N failed"; exit status 1 if anything failed or nothing
#              was checked, else the script's own status.
# gpio-sim:    gpiosim_new NAME NLINES [LINE_NAME...]  sets GPIOSIM_CHIP (gpiochipN),
#              GPIOSIM_DEV (gpio-sim.N), GPIOSIM_LABEL (= NAME), GPIOSIM_PATH (/dev/gpiochipN)
#              gpiosim_chip NAME | gpiosim_dev NAME     print them again later
#              gpiosim_value NAME OFFSET                 prints the value a consumer drives (0/1)
#              gpiosim_set_pull NAME OFFSET pull-up|pull-down
#              gpiosim_live NAME 0|1                      remove / re-add the chip (hotplug)
#              gpiosim_remove NAME                        (all chips are removed at exit)
# D-Bus:       start_dbus [POLICY_FILE...]  system dbus-daemon (policy files copied into
#              /etc/dbus-1/system.d first); returns once `busctl list` answers
#              stop_dbus
# uledsd:      uledsd_bin   prints the uledsd binary's path (ULEDSD_BIN, else the build dir)
# Background processes started with bg_start CMD... are killed at exit (pid in $BG_PID).

set -u

_lib_passed=0
_lib_failed=0
_lib_bg_pids=()
_lib_gpiosims=()

pass() {
	_lib_passed=$((_lib_passed + 1))
	echo "ok $((_lib_passed + _lib_failed)) - $*"
}

fail() {
	_lib_failed=$((_lib_failed + 1))
	echo "not ok $((_lib_passed + _lib_failed)) - $*"
}

# assert_eq EXPECTED ACTUAL WHAT: passes when equal, else says what differed.
assert_eq() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3: expected '$1', got '$2'"
		return 1
	fi
}

# assert_true WHAT CMD...: passes when CMD succeeds.
assert_true() {
	local what=$1
	shift
	if "$@"; then
		pass "$what"
	else
		fail "$what (failed: $*)"
		return 1
	fi
}

# A sleep without a fork (forks are slow under emulation): read from a pipe nobody writes.
exec {_lib_sleep_fd}<> <(:)
_lib_sleep() { read -r -t "$1" -u "$_lib_sleep_fd" _ || :; }

# _lib_usec: now in microseconds.
_lib_usec() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

# wait_for TIMEOUT_S CMD...: runs CMD every 50 ms until it succeeds (0) or the time is up
# (1). TIMEOUT_S may have a fraction (0.5); it is multiplied by ULEDSD_TIME_SCALE (default 1).
wait_for() {
	local t=$1 int frac deadline now
	shift
	int=${t%%.*}
	frac=000000
	[ "$t" != "$int" ] && frac=${t#*.}000000
	# ULEDSD_TIME_SCALE: uledsd under a memory checker (test-checked.sh) is that much slower.
	deadline=$(($(_lib_usec) + (10#${int:-0} * 1000000 + 10#${frac:0:6}) * ${ULEDSD_TIME_SCALE:-1}))
	until "$@"; do
		now=$(_lib_usec)
		[ "$now" -lt "$deadline" ] || return 1
		_lib_sleep 0.05
	done
}

bg_start() {
	"$@" &
	BG_PID=$!
	_lib_bg_pids+=("$BG_PID")
}

_lib_exit() {
	local rc=$? p n
	for p in "${_lib_bg_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for n in "${_lib_gpiosims[@]}"; do
		gpiosim_remove "$n" 2>/dev/null
	done
	echo "# $_lib_passed passed, $_lib_failed failed"
	if [ "$_lib_failed" -gt 0 ]; then
		exit 1
	elif [ "$_lib_passed" -eq 0 ]; then
		echo "# nothing was checked: failing"
		exit 1
	fi
	exit "$rc"
}
trap _lib_exit EXIT

# --- gpio-sim (configfs) -----------------------------------------------------------------
GPIOSIM_CONFIGFS=/sys/kernel/config/gpio-sim

gpiosim_new() {
	local name=$1 nlines=$2 d i=0
	shift 2
	d=$GPIOSIM_CONFIGFS/$name
	mkdir "$d" "$d/bank0" || { echo "gpiosim_new: cannot create $d" >&2; return 1; }
	_lib_gpiosims+=("$name")
	echo "$nlines" >"$d/bank0/num_lines"
	echo "$name" >"$d/bank0/label"
	for n in "$@"; do
		mkdir "$d/bank0/line$i"
		echo "$n" >"$d/bank0/line$i/name"
		i=$((i + 1))
	done
	echo 1 >"$d/live" || { echo "gpiosim_new: $name did not go live" >&2; return 1; }
	# shellcheck disable=SC2034 # for the test scripts
	GPIOSIM_DEV=$(cat "$d/dev_name")
	GPIOSIM_CHIP=$(cat "$d/bank0/chip_name")
	# shellcheck disable=SC2034
	GPIOSIM_LABEL=$name
	GPIOSIM_PATH=/dev/$GPIOSIM_CHIP
	# The chardev appears with the chip; wait for devtmpfs rather than race it.
	wait_for 5 test -c "$GPIOSIM_PATH" || { echo "gpiosim_new: no $GPIOSIM_PATH" >&2; return 1; }
}

gpiosim_chip() { cat "$GPIOSIM_CONFIGFS/$1/bank0/chip_name"; }
gpiosim_dev() { cat "$GPIOSIM_CONFIGFS/$1/dev_name"; }

_gpiosim_line() {
	echo "/sys/devices/platform/$(gpiosim_dev "$1")/$(gpiosim_chip "$1")/sim_gpio$2"
}

# gpiosim_value NAME OFFSET: the value the line's consumer drives (or the pull, if none).
gpiosim_value() { cat "$(_gpiosim_line "$1" "$2")/value"; }

gpiosim_set_pull() { echo "$3" >"$(_gpiosim_line "$1" "$2")/pull"; }

gpiosim_live() {
	echo "$2" >"$GPIOSIM_CONFIGFS/$1/live" || return 1
	if [ "$2" = 1 ]; then
		wait_for 5 test -c "/dev/$(gpiosim_chip "$1")"
	fi
}

gpiosim_remove() {
	local d=$GPIOSIM_CONFIGFS/$1 l
	[ -d "$d" ] || return 0
	echo 0 >"$d/live" 2>/dev/null
	for l in "$d"/bank0/line*; do
		[ -d "$l" ] && rmdir "$l"
	done
	rmdir "$d/bank0" "$d"
}

# Line values without forks (a fork costs tens of ms under emulation).
#   sim_path NAME                      caches the chip's sysfs directory (call after gpiosim_new)
#   line_is NAME OFFSET VALUE          the line's driven value is VALUE
#   line_val NAME OFFSET               prints it ("absent" when the chip is gone)
#   expect_line NAME OFFSET VALUE WHAT waits up to 3 s for VALUE, then passes or fails
#   set_b LED VALUE                    writes the LED's sysfs brightness
declare -A simpath
sim_path() { simpath[$1]=/sys/devices/platform/$(gpiosim_dev "$1")/$(gpiosim_chip "$1"); }
line_is() { local v; read -r v <"${simpath[$1]}/sim_gpio$2/value" 2>/dev/null && [ "$v" = "$3" ]; }
line_val() { local v=absent; read -r v <"${simpath[$1]}/sim_gpio$2/value" 2>/dev/null; echo "$v"; }
expect_line() {
	if wait_for 3 line_is "$1" "$2" "$3"; then
		pass "$4"
	else
		fail "$4: $1 line $2 is $(line_val "$1" "$2"), expected $3"
	fi
}
set_b() { echo "$2" >"/sys/class/leds/$1/brightness"; }

# --- D-Bus -------------------------------------------------------------------------------
# as USER CMD...: CMD, a program or a function of these scripts, with USER's uid, gid and
# groups (setpriv); root runs it as it is.
as() {
	local u=$1
	shift
	if [ "$u" = root ]; then
		"$@"
	elif [ "$(type -t "$1")" = function ]; then
		setpriv --reuid="$u" --regid="$u" --init-groups bash -c "$(declare -f "$1"); \"\$@\"" as "$@"
	else
		setpriv --reuid="$u" --regid="$u" --init-groups "$@"
	fi
}
# gcall PATH INTERFACE.METHOD [GVARIANT...]: a call to io.uledsd1 with gdbus; prints the reply,
# or the error with its D-Bus name ("GDBus.Error:NAME: message"). busctl prints "Access denied"
# for every AccessDenied error, whatever message uledsd gave.
gcall() {
	local p=$1 m=$2
	shift 2
	gdbus call --system --timeout 60 --dest io.uledsd1 --object-path "$p" --method "$m" "$@" 2>&1
}
# gpairs KEY VALUE...: those pairs as a GVariant a(ss) for gcall (no quotes in them).
gpairs() {
	local v=""
	while [ $# -ge 2 ]; do
		v+="${v:+, }('$1', '$2')"
		shift 2
	done
	if [ -n "$v" ]; then echo "[$v]"; else echo "@a(ss) []"; fi
}
# start_dbus [POLICY_FILE...]: a system bus for the test. Under --systemd the bus runs
# already: the policies are added and the daemon told to reload them.
start_dbus() {
	local f
	mkdir -p /run/dbus /etc/dbus-1/system.d
	for f in "$@"; do
		cp "$f" /etc/dbus-1/system.d/ || return 1
	done
	if busctl --system list --no-pager >/dev/null 2>&1; then
		busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
			ReloadConfig >/dev/null
		return
	fi
	_lib_dbus_pid=$(dbus-daemon --system --fork --nopidfile --print-pid) ||
		{ echo "start_dbus: dbus-daemon failed" >&2; return 1; }
	_lib_bg_pids+=("$_lib_dbus_pid")
	wait_for 10 busctl --system list --no-pager >/dev/null 2>&1 ||
		{ echo "start_dbus: the system bus does not answer busctl list" >&2; return 1; }
}

# stop_dbus: stops the bus start_dbus started (to test a bus going away).
stop_dbus() {
	[ -n "${_lib_dbus_pid:-}" ] || { echo "stop_dbus: start_dbus did not start a bus" >&2; return 1; }
	kill "$_lib_dbus_pid"
	wait_for 5 sh -c "! kill -0 $_lib_dbus_pid 2>/dev/null"
	rm -f /run/dbus/system_bus_socket
	_lib_dbus_pid=
}

# --- uledsd ------------------------------------------------------------------------------
uledsd_bin() {
	local p
	for p in ${ULEDSD_BIN:-} "${ULEDSD_BUILD_ROOT:-}/daemon/uledsd" "${ULEDSD_BUILD_ROOT:-}/uledsd"; do
		[ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return 0; }
	done
	echo "uledsd_bin: no uledsd binary under ${ULEDSD_BUILD_ROOT:-?} (daemon/uledsd or uledsd); build it first" >&2
	return 1
}

# uledsd_gpio_bin: uledsd_bin, failing the test when the binary has no gpio backend.
uledsd_gpio_bin() {
	local b
	b=$(uledsd_bin) || return 1
	if ! "$b" --help | grep -q 'backends (.*gpio'; then
		echo "uledsd_gpio_bin: $b has no gpio backend: build with meson configure -Dgpio=enabled" >&2
		return 1
	fi
	echo "$b"
}
