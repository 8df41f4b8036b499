#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd.service under systemd as PID 1 (vm-run.sh --systemd). Both modes: meson install,
# enable --now (active only once the LEDs exist), STATUS=, the sandbox lets every backend work,
# stop releases everything.
#   usage: test-systemd-unit.sh service   security exposure, /dev read-only in the sandbox
#                                         (a GPIO chip replugged still works), synchronous
#                                         reload over D-Bus and without it, re-execution
#                                         through systemd (uledsd-reload --reexec), restore
#                                         across systemctl restart, MemoryMax= and TasksMax=
#                                         against what the unit used
#          test-systemd-unit.sh crash     kill -9 and a hung daemon (SIGSTOP, watchdog): the
#                                         unit restarts and the LEDs never disappear (fd store),
#                                         a 'uledsctl create --keep' LED included; a definition
#                                         broken before a crash keeps its LED; who may change
#                                         state under the sandbox (root, group uledsd, others);
#                                         FileDescriptorStoreMax exceeded; no uleds module
# Two modes, two boots: together they would not fit in vm-run.sh's 200 s under emulation.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
. "$(dirname "$0")/lib.sh"

mode=${1:-}
case $mode in
service | crash) ;;
*) fail "usage: test-systemd-unit.sh service|crash"; exit 1 ;;
esac
L=/sys/class/leds
U=uledsd.service
build=${ULEDSD_BUILD_ROOT:?}
WATCHDOG=3 # seconds, from the test's drop-in

[ "$(cat /proc/1/comm)" = systemd ] || { fail "PID 1 is $(cat /proc/1/comm), not systemd: run with vm-run.sh --systemd"; exit 1; }
timeout 90 systemctl is-system-running --wait >/dev/null

# --- install ------------------------------------------------------------------------------
t0=$(_lib_usec)
meson install -C "$build" --no-rebuild --quiet >/tmp/install.log 2>&1 ||
	{ cat /tmp/install.log; fail "meson install into the guest root"; exit 1; }
echo "# meson install: $((($(_lib_usec) - t0) / 1000)) ms"
installed() { # installed SUFFIX: the installed path of the file whose source ends in SUFFIX
	meson introspect --installed "$build" | jq -r --arg s "$1" \
		'to_entries[] | select(.key | endswith($s)) | .value' | head -n1
}
unit_file=$(installed /uledsd.service)
policy=$(installed /io.uledsd1.conf)
sbin=$(installed /uledsd)
uledsctl=$(installed ctl/uledsctl)
assert_true "the unit is installed where systemd looks ($unit_file)" \
	sh -c "systemd-analyze unit-paths | grep -qx '$(dirname "$unit_file")'"
for f in "$sbin" "$(installed /uledsd-reload)" "$(installed modules-load.d/uleds.conf)" "$policy"; do
	assert_true "installed: $f" test -s "$f"
done
# A /usr/local prefix puts the policy where dbus-daemon does not read: add it to /etc.
case $policy in
/usr/share/dbus-1/system.d/* | /etc/dbus-1/system.d/*) start_dbus ;;
*) start_dbus "$policy" ;;
esac

# --- configuration ------------------------------------------------------------------------
gpiosim_new sdsim 4 SD_L0 SD_L1 SD_L2 SD_L3 || exit 1
mkdir -p /etc/uledsd.d /etc/systemd/system/$U.d
cat >/etc/uledsd.d/10-test.conf <<'C'
[sd:green:log]
max_brightness = 100
backends = log
log.max_rate = 0

[sd:red:blink]
max_brightness = 1
trigger = timer
trigger.delay_on = 20
trigger.delay_off = 20

[sd:amber:restore]
default_brightness = restore

[sd:gpio]
max_brightness = 1
backends = gpio
gpio.chip = sdsim
gpio.line = SD_L1
C
cat >/etc/uledsd.d/20-gone.conf <<'C'
[sd:gone]
max_brightness = 9
C
# A short watchdog keeps the hung-daemon test fast.
printf '[Service]\nWatchdogSec=%ss\n' $WATCHDOG >/etc/systemd/system/$U.d/50-test.conf

main_pid() { systemctl show -p MainPID --value $U; }
prop() { systemctl show -p "$1" --value $U; }
journal_has() { journalctl -u $U -o cat --no-pager "${@:2}" | grep -qF -- "$1"; }
gpio_is() { [ "$(gpiosim_value sdsim 1)" = "$1" ]; }
ino() { stat -L -c %i "$L/$1"; }
all_exist() { local n; for n in "$@"; do [ -e "$L/$n" ] || return 1; done; }

# --- start: active only once the LEDs exist ------------------------------------------------
t0=$(_lib_usec)
# enable reloads systemd's configuration itself, drop-in included.
assert_true "systemctl enable --now $U" systemctl enable --now $U
echo "# systemctl enable --now: $((($(_lib_usec) - t0) / 1000)) ms"
assert_true "every LED exists when enable --now returns" \
	all_exist sd:green:log sd:red:blink sd:amber:restore sd:gpio sd:gone
assert_eq active "$(systemctl is-active $U)" "unit state after start"
assert_eq running "$(prop SubState)" "sub-state after start"
assert_eq "5 LEDs, 0 errors" "$(prop StatusText)" "STATUS= after start"
assert_true "systemctl status shows the STATUS line" \
	sh -c "systemctl status --no-pager $U | grep -q 'Status: \"5 LEDs, 0 errors\"'"
# uledsd's kmod: one uleds group holds every LED (kmod/README, "Groups"): one fd in the store.
assert_eq 1 "$(prop NFileDescriptorStore)" "one fd (the uleds group of 5 LEDs) in systemd's fd store"
assert_true "uledsd says the group is stored" \
	journal_has "fd store: the uleds group (one fd for every LED) is kept by systemd." _PID="$(main_pid)"
on_bus() { busctl --system list --no-pager --no-legend 2>/dev/null | grep -q '^io\.uledsd1 '; }
assert_true "uledsd owns io.uledsd1 on the system bus" wait_for 10 on_bus
systemctl status --no-pager $U | sed 's/^/#   /' | head -n 12

# --- the sandbox lets it do its work --------------------------------------------------------
echo 42 >"$L/sd:green:log/brightness"
assert_true "brightness reaches the log backend (journal)" \
	wait_for 10 journal_has "sd:green:log: brightness 42/100"
assert_true "the log backend's record carries LED=, BRIGHTNESS=, MAX_BRIGHTNESS= fields" \
	journal_has "sd:green:log: brightness 42/100" LED=sd:green:log BRIGHTNESS=42 MAX_BRIGHTNESS=100
echo 1 >"$L/sd:gpio/brightness"
assert_true "brightness reaches the gpio backend (/dev/gpiochip* allowed)" \
	wait_for 10 gpio_is 1
assert_true "the timer trigger runs" grep -q '\[timer\]' "$L/sd:red:blink/trigger"
assert_eq "$(prop StateDirectory)" uledsd "StateDirectory="

# --- security exposure ------------------------------------------------------------------
test_security() {
	exposure() { sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }
	online=$(systemd-analyze security --no-pager $U 2>&1 | tee /tmp/security.txt | exposure)
	offline=$(systemd-analyze security --no-pager --offline=true "$unit_file" 2>&1 | exposure)
	grep -E '^✗|Overall' /tmp/security.txt | sed 's/^/#   /'
	echo "# systemd-analyze security: $online (running unit), $offline (--offline=true $unit_file)"
	assert_true "exposure $online <= 2.0" awk -v e="$online" 'BEGIN { exit !(e != "" && e <= 2.0) }'
	assert_true "offline exposure $offline <= 2.0" awk -v e="$offline" 'BEGIN { exit !(e != "" && e <= 2.0) }'
}

# --- /dev is read-only in the sandbox; its device nodes still open ---------------------------
# ProtectSystem=strict leaves /dev writable: root without capabilities could create files there.
test_sandbox_dev() {
	local pid
	pid=$(main_pid)
	assert_eq ro "$(awk '$5 == "/dev" { split($6, o, ","); print o[1] }' /proc/"$pid"/mountinfo)" \
		"/dev is mounted read-only in uledsd's mount namespace (mountinfo)"
	assert_true "no file can be created in its /dev" \
		sh -c "! nsenter -t $pid -m touch /dev/uledsd-sandbox-test 2>/dev/null"
	assert_true "nor in its /dev/shm" sh -c "! nsenter -t $pid -m touch /dev/shm/uledsd-sandbox-test 2>/dev/null"
	assert_true "nothing was created in /dev" \
		sh -c "[ ! -e /dev/uledsd-sandbox-test ] && [ ! -e /dev/shm/uledsd-sandbox-test ]"
	# A node the kernel creates after the start: the read-only mount shows it (same devtmpfs).
	gpiosim_live sdsim 0
	assert_true "the GPIO chip's removal is seen" wait_for 10 journal_has "sd:gpio: gpio: waiting for"
	gpiosim_live sdsim 1 || fail "gpio-sim sdsim did not come back"
	assert_true "the replugged chip's new node opens under the read-only /dev: line driven again" \
		wait_for 10 gpio_is 1
}

# --- MemoryMax= and TasksMax= are in force, well above what the unit used ----------------------
# After the reloads (uledsd-reload's SIGHUP path runs the most processes: sh, a command
# substitution, systemctl, sed). memory.peak and pids.peak: kernels 5.19 and 6.1+; else the
# current values.
test_limits() {
	local cg mem tasks
	cg=/sys/fs/cgroup$(prop ControlGroup)
	assert_eq $((256 << 20)) "$(cat "$cg/memory.max")" "MemoryMax=256M is the cgroup's memory.max"
	assert_eq 16 "$(cat "$cg/pids.max")" "TasksMax=16 is the cgroup's pids.max"
	mem=$(cat "$cg/memory.peak" 2>/dev/null || cat "$cg/memory.current")
	tasks=$(cat "$cg/pids.peak" 2>/dev/null || cat "$cg/pids.current")
	echo "# the unit's cgroup at its peak: $((mem >> 10)) KiB, $tasks tasks; uledsd: $(grep -E '^VmRSS' /proc/"$(main_pid)"/status | tr -s ' \t' ' ')"
	assert_true "memory at its peak ($((mem >> 10)) KiB, 5 LEDs) is below 1/16 of MemoryMax=" \
		test "$mem" -lt $((16 << 20))
	assert_true "tasks at their peak ($tasks) are at most half of TasksMax=" test "$tasks" -le 8
}

# --- re-execution through systemd: what the package's postinst runs on an upgrade --------------
test_reexec() {
	local pid restarts inode before
	pid=$(main_pid) restarts=$(prop NRestarts) inode=$(ino sd:red:blink)
	before=$(prop StatusText | sed -n 's/.*(reload \([0-9]*\)).*/\1/p')
	assert_true "uledsd-reload $U --reexec (systemctl kill --kill-whom=main --signal=SIGUSR2)" \
		timeout 60 "$(installed /uledsd-reload)" $U --reexec
	assert_eq "$pid" "$(main_pid)" "re-executed in place: the same main PID"
	assert_eq "$restarts" "$(prop NRestarts)" "not restarted"
	assert_eq "5 LEDs, 0 errors (reload $((before + 1)))" "$(prop StatusText)" \
		"STATUS= counts the re-execution when the helper returns"
	assert_eq "$inode" "$(ino sd:red:blink)" "the LED is kept (same sysfs inode)"
	assert_true "the journal shows the re-execution" journal_has "Re-executed: adopting" _PID="$pid"
}

# --- reload over D-Bus: applied when systemctl reload returns ----------------------------------
test_reload_dbus() {
	rm /etc/uledsd.d/20-gone.conf
	printf '[sd:new]\nmax_brightness = 3\n' >/etc/uledsd.d/30-new.conf
	sed -i 's/delay_on = 20/delay_on = 30/' /etc/uledsd.d/10-test.conf
	pid=$(main_pid)
	t0=$(_lib_usec)
	assert_true "systemctl reload (D-Bus)" systemctl reload $U
	echo "# systemctl reload (D-Bus): $((($(_lib_usec) - t0) / 1000)) ms"
	assert_true "a removed LED's sysfs node is gone when reload returns" test ! -e "$L/sd:gone"
	assert_true "an added LED exists when reload returns" test -e "$L/sd:new"
	assert_eq 30 "$(cat "$L/sd:red:blink/delay_on")" "a changed trigger attribute is applied when reload returns"
	assert_eq "$pid" "$(main_pid)" "reload keeps the process"
	assert_eq "5 LEDs, 0 errors (reload 1)" "$(prop StatusText)" "STATUS= after the reload"
	# uledsd's kmod removes the LED at once (ULEDS_IOC_DEV_REMOVE); systemd drops its copy when
	# it sees the HUP, in its own time.
	assert_eq 1 "$(prop NFileDescriptorStore)" "the fd store holds the group still, the one fd"
	assert_true "the reload went through the D-Bus method" \
		journal_has "Reloading the configuration." _PID="$pid"
	# A new max_brightness recreates the LED: the old one must be gone before the name is
	# registered again, or the kernel answers EEXIST (ULEDS_IOC_DEV_REMOVE removes it at once,
	# though systemd still holds a copy of its fd).
	printf '[sd:new]\nmax_brightness = 7\n' >/etc/uledsd.d/30-new.conf
	assert_true "systemctl reload (max_brightness changed)" systemctl reload $U
	assert_eq 7 "$(cat "$L/sd:new/max_brightness" 2>&1)" "a recreated LED has its new max_brightness when reload returns"
	assert_eq "5 LEDs, 0 errors (reload 2)" "$(prop StatusText)" "STATUS= after recreating an LED"
	assert_eq 1 "$(prop NFileDescriptorStore)" "the fd store holds the group, no per-LED fd"
}

# --- kill -9: restarted, the LEDs never disappear, triggers keep running ------------------
watch_leds() { # watch_leds FILE: appends a line for every moment an LED was missing
	local n
	for ((;;)); do
		for n in sd:green:log sd:red:blink sd:gpio sd:amber:restore ${WATCH_EXTRA:-}; do
			[ -e "$L/$n/brightness" ] || echo "missing $n $(_lib_usec)" >>"$1"
		done
	done
}
# restarted_from PID: a new main process is up and the unit is active (READY=1) again.
restarted_from() {
	local p s
	{ read -r p; read -r s; } < <(systemctl show -p MainPID -p ActiveState --value $U)
	[ "$p" != "$1" ] && [ "$p" != 0 ] && [ "$s" = active ]
}
# Monotonic µs now and when the unit last became active: the restart time without the
# polling's own cost (/proc/uptime is CLOCK_BOOTTIME: the same without suspend).
now_mono() { local u; read -r u _ </proc/uptime; echo $((10#${u/./} * 10000)); }
restart_ms() { echo $((($(prop ActiveEnterTimestampMonotonic) - $1) / 1000)); }

test_kill9() {
	local pid restarts inode_blink inode_log inode_kept t0 watcher
	echo 77 >"$L/sd:amber:restore/brightness"
	inode_blink=$(ino sd:red:blink) inode_log=$(ino sd:green:log) inode_kept=$(ino sd:white:kept)
	: >/tmp/missing.1
	bg_start watch_leds /tmp/missing.1
	watcher=$BG_PID
	restarts=$(prop NRestarts)
	pid=$(main_pid)
	t0=$(now_mono)
	kill -9 "$pid"
	assert_true "restarted after kill -9" wait_for 20 restarted_from "$pid"
	echo "# kill -9 to active (READY=1) again: $(restart_ms "$t0") ms"
	kill "$watcher"
	assert_eq $((restarts + 1)) "$(prop NRestarts)" "NRestarts after kill -9"
	assert_eq "" "$(head -n3 /tmp/missing.1)" "no LED disappeared across kill -9 and restart"
	assert_eq "$inode_blink" "$(ino sd:red:blink)" "sd:red:blink is the same sysfs node (inode)"
	assert_eq "$inode_log" "$(ino sd:green:log)" "sd:green:log is the same sysfs node (inode)"
	assert_true "its timer trigger kept running" grep -q '\[timer\]' "$L/sd:red:blink/trigger"
	assert_eq 77 "$(cat "$L/sd:amber:restore/brightness")" "brightness kept across kill -9"
	pid=$(main_pid)
	assert_true "the new process adopted the LEDs from the fd store" \
		journal_has "sd:red:blink: adopted from the fd store" _PID="$pid"
	assert_eq 1 "$(prop NFileDescriptorStore)" "the fd store still holds the one group (the kept LED in it too)"
	assert_true "the new process took the LEDs from the stored group" \
		journal_has "fd store: 6 LEDs kept by systemd in a uleds group." _PID="$pid"
	assert_eq "$inode_kept" "$(ino sd:white:kept)" "the kept transient LED is the same sysfs node (inode)"
	assert_true "the kept LED is still Transient" kept_is_transient
	assert_true "the new process adopted the kept LED from the fd store" \
		journal_has "sd:white:kept: transient LED adopted from the fd store (kept)" _PID="$pid"
	assert_true "its record is still in /run/uledsd/transient" sh -c "ls /run/uledsd/transient | grep -q white"
	echo 55 >"$L/sd:green:log/brightness"
	assert_true "brightness is forwarded again after the restart" \
		wait_for 10 journal_has "sd:green:log: brightness 55/100" _PID="$pid"
	assert_true "the gpio line is driven again after the restart" \
		wait_for 10 gpio_is 1
}

# --- access under the sandbox: root, the group uledsd (sysusers file), everyone else -----------
test_access() {
	local gid
	assert_true "the installed sysusers file creates the group uledsd" \
		systemd-sysusers "$(installed sysusers.d/uledsd.conf)"
	gid=$(getent group uledsd | cut -d: -f3)
	assert_true "group uledsd exists ($gid)" test -n "$gid"
	assert_true "root: uledsctl set" "$uledsctl" set sd:green:log 10
	assert_true "a member of group uledsd: uledsctl set (dbus-daemon's UnixGroupIDs reach the sandboxed uledsd)" \
		setpriv --reuid=65534 --regid=65534 --groups="$gid" "$uledsctl" set sd:green:log 11
	assert_eq 11 "$(cat "$L/sd:green:log/brightness")" "the group member's set reached sysfs"
	assert_true "a plain user: uledsctl set is denied" sh -c \
		"! setpriv --reuid=65534 --regid=65534 --clear-groups '$uledsctl' set sd:green:log 12 2>/tmp/denied.err"
	assert_true "the denial names the group and polkit ($(cat /tmp/denied.err))" \
		grep -q "Permission denied.*group uledsd.*polkit" /tmp/denied.err
	assert_eq 11 "$(cat "$L/sd:green:log/brightness")" "the plain user's set changed nothing"
}

# --- uledsctl create --keep under the unit: $RUNTIME_DIRECTORY, survives kill -9 ----------------
test_keep_create() {
	assert_true "uledsctl create --keep under the unit" \
		"$uledsctl" create sd:white:kept --keep --max 1 --trigger timer delay_on=50 delay_off=50
	assert_true "the kept LED exists" test -e "$L/sd:white:kept"
	assert_true "it is remembered in the unit's RuntimeDirectory (/run/uledsd/transient)" \
		sh -c "ls /run/uledsd/transient | grep -q white"
	assert_eq /run/uledsd "$(prop RuntimeDirectory | sed 's|^|/run/|')" "RuntimeDirectory="
	assert_eq 1 "$(prop NFileDescriptorStore)" "the kept LED is in the stored group: still one fd"
}
kept_is_transient() {
	[ "$(busctl --system get-property io.uledsd1 /io/uledsd1/led/sd_3awhite_3akept io.uledsd1.LED Transient 2>/dev/null)" = "b true" ]
}

# --- an LED whose definition an edit broke, then a crash: kept as it was, not released ------------
test_broken_then_crash() {
	local pid inode
	inode=$(ino sd:green:log)
	sed -i '/^\[sd:green:log\]/,/^$/s/^max_brightness = 100/max_brightness = lots/' /etc/uledsd.d/10-test.conf
	assert_true "the edit broke sd:green:log's definition" grep -q 'max_brightness = lots' /etc/uledsd.d/10-test.conf
	pid=$(main_pid)
	kill -9 "$pid"
	assert_true "restarted after kill -9 with a broken definition" wait_for 20 restarted_from "$pid"
	pid=$(main_pid)
	assert_true "the LED of the broken definition still exists" test -e "$L/sd:green:log"
	assert_eq "$inode" "$(ino sd:green:log)" "it is the same sysfs node (inode): kept, not released"
	assert_eq 100 "$(cat "$L/sd:green:log/max_brightness")" "it keeps its old max_brightness"
	assert_true "the journal says it is kept as it was" \
		journal_has "sd:green:log: its definition has errors; keeping the LED as it was before the restart" _PID="$pid"
	assert_true "the journal does not say it was released" \
		sh -c "! journalctl -u $U -o cat --no-pager _PID=$pid | grep -q 'sd:green:log: no longer configured'"
	assert_true "the journal names the error (FILE:LINE)" journal_has "10-test.conf:2: " _PID="$pid"
	assert_eq 1 "$(prop NFileDescriptorStore)" "the fd store still holds the group with the kept LED"
	sed -i 's/^max_brightness = lots/max_brightness = 100/' /etc/uledsd.d/10-test.conf
	assert_true "systemctl reload with the error fixed" systemctl reload $U
	assert_eq "$inode" "$(ino sd:green:log)" "the fixed definition (unchanged) keeps the same LED"
}

# --- a hung daemon (SIGSTOP): the watchdog kills it, it restarts, the LEDs stay ---------------
test_watchdog() {
	local pid limit t0 watcher ms
	: >/tmp/missing.2
	bg_start watch_leds /tmp/missing.2
	watcher=$BG_PID
	pid=$(main_pid)
	limit=$((2 * WATCHDOG + 10))
	t0=$(now_mono)
	kill -STOP "$pid"
	assert_true "a stopped daemon is restarted" wait_for $((limit + 10)) restarted_from "$pid"
	ms=$(restart_ms "$t0")
	echo "# SIGSTOP to active (READY=1) again: $ms ms (WatchdogSec=$WATCHDOG)"
	assert_true "restarted within 2 x WatchdogSec + 10 s = $limit s (took $ms ms)" test "$ms" -le $((limit * 1000))
	kill "$watcher"
	assert_true "the journal says the watchdog fired" journal_has "Watchdog timeout"
	assert_true "the old process is gone" sh -c "! kill -0 $pid 2>/dev/null"
	assert_eq "" "$(head -n3 /tmp/missing.2)" "no LED disappeared across the watchdog restart"
	assert_true "the timer trigger still runs" grep -q '\[timer\]' "$L/sd:red:blink/trigger"
}

# --- default_brightness = restore across systemctl restart ------------------------------------
test_restore() {
	echo 123 >"$L/sd:amber:restore/brightness"
	sleep 0.3
	inode_restore=$(ino sd:amber:restore)
	assert_true "systemctl restart" systemctl restart $U
	assert_eq 123 "$(cat "$L/sd:amber:restore/brightness")" "a restore LED comes back at its saved brightness"
	assert_eq 123 "$(cat /var/lib/uledsd/sd%3Aamber%3Arestore 2>&1)" "the saved value in the state directory"
	assert_eq "5 LEDs, 0 errors" "$(prop StatusText)" "STATUS= after restart"
	echo "# restore LED inode before/after restart: $inode_restore/$(ino sd:amber:restore)"
}

# --- without D-Bus (--bus none): reload by SIGHUP is still synchronous -----------------------
test_reload_sighup() {
	cat >/etc/systemd/system/$U.d/60-nobus.conf <<-C
	[Service]
	ExecStart=
	ExecStart=$sbin --bus none
	BusName=
	C
	systemctl daemon-reload
	assert_true "restart with --bus none" systemctl restart $U
	assert_true "uledsd is not on the bus" sh -c "! busctl --system list --no-pager --no-legend | grep -q '^io\.uledsd1 '"
	printf '[sd:gone]\nmax_brightness = 9\n' >/etc/uledsd.d/20-gone.conf
	rm /etc/uledsd.d/30-new.conf
	t0=$(_lib_usec)
	assert_true "systemctl reload (SIGHUP)" systemctl reload $U
	echo "# systemctl reload (SIGHUP, waiting for STATUS=): $((($(_lib_usec) - t0) / 1000)) ms"
	assert_true "an added LED exists when reload returns" test -e "$L/sd:gone"
	assert_true "a removed LED is gone when reload returns" test ! -e "$L/sd:new"
	assert_eq "5 LEDs, 0 errors (reload 1)" "$(prop StatusText)" "STATUS= after the SIGHUP reload"
	assert_eq 1 "$(prop NFileDescriptorStore)" "the fd store holds the group across the SIGHUP reload"
	printf '[sd:broken]\nmax_brightness = many\n' >/etc/uledsd.d/40-broken.conf
	assert_true "a second reload, with an error in the configuration" systemctl reload $U
	assert_eq "5 LEDs, 1 error (reload 2)" "$(prop StatusText)" "STATUS= counts the error"
	rm /etc/uledsd.d/40-broken.conf
}

# --- FileDescriptorStoreMax=1: the one group fd keeps every LED across a crash ----------------
# With per-LED fds (the in-tree uleds) systemd 252 keeps no fd beyond the limit and the rest
# are created again (README, "Crash survival"); the uleds group holds them all in one fd.
test_fdstore_max() {
	local pid n_same=0 n_new=0 name
	declare -A before
	printf '[Service]\nFileDescriptorStoreMax=1\n' >/etc/systemd/system/$U.d/70-storemax.conf
	systemctl daemon-reload
	assert_true "restart with FileDescriptorStoreMax=1" systemctl restart $U
	assert_eq 1 "$(prop NFileDescriptorStore)" "systemd keeps the one fd, the group of 5 LEDs"
	for name in sd:green:log sd:red:blink sd:amber:restore sd:gpio sd:gone; do
		before[$name]=$(ino $name)
	done
	pid=$(main_pid)
	kill -9 "$pid"
	assert_true "restarted after kill -9" wait_for 20 restarted_from "$pid"
	for name in "${!before[@]}"; do
		if [ ! -e "$L/$name" ]; then
			fail "$name is missing after the restart"
		elif [ "$(ino $name)" = "${before[$name]}" ]; then
			n_same=$((n_same + 1))
		else
			n_new=$((n_new + 1))
		fi
	done
	assert_eq "5 kept, 0 created again" "$n_same kept, $n_new created again" \
		"every LED adopted from the one stored fd (same inode)"
	assert_eq "5 LEDs, 0 errors" "$(prop StatusText)" "STATUS= after the restart"
	rm /etc/systemd/system/$U.d/70-storemax.conf
	systemctl daemon-reload
}

# --- no uleds module when the unit starts: a clear failure, then a start once it is loaded ----
# DeviceAllow=/dev/uleds is resolved when the unit starts (README, "Hardening"): the module
# must be loaded first; modprobe@uleds.service does that. When it cannot, uledsd says what to
# do and the unit fails; after loading the module a start works.
test_no_module() {
	local conf=/etc/modprobe.d/uledsd-vm.conf
	assert_true "systemctl stop" systemctl stop $U
	assert_true "rmmod uleds" rmmod uleds
	cp $conf /tmp/modprobe-saved.conf
	sed -i 's|^install uleds .*|install uleds /bin/false|' $conf
	assert_true "with no way to load uleds, systemctl start fails" sh -c "! systemctl start $U"
	# A process that exits at once can lose its unit in the journal: look for its name too.
	said() { { journalctl -o cat --no-pager -u $U; journalctl -o cat --no-pager -t uledsd; } | grep -qF "$1"; }
	assert_true "uledsd said what to do" \
		wait_for 10 said "/dev/uleds: No such file or directory. Load the uleds module: modprobe uleds" ||
		journalctl -o short-monotonic --no-pager -n 40 | sed 's/^/#   /'

	cp /tmp/modprobe-saved.conf $conf
	systemctl stop $U 2>/dev/null # an automatic restart may still be pending
	systemctl reset-failed $U
	# A pending automatic restart may have loaded it already (modprobe@uleds.service): the
	# harness's "install uleds insmod ..." then fails with EEXIST; what counts is the node.
	modprobe uleds 2>/dev/null
	assert_true "/dev/uleds is there (modprobe uleds)" wait_for 10 test -c /dev/uleds
	assert_true "with the module loaded, systemctl start works" systemctl start $U ||
		systemctl status --no-pager -l $U | sed 's/^/#   /'
	assert_eq "5 LEDs, 0 errors" "$(prop StatusText)" "every LED is there"
}

case $mode in
service)
	test_security
	test_sandbox_dev
	test_reload_dbus
	test_reexec
	test_restore
	test_reload_sighup
	test_limits
	;;
crash)
	test_access
	test_keep_create
	WATCH_EXTRA=sd:white:kept
	test_kill9
	test_watchdog
	assert_true "the kept LED survived the watchdog restart too" kept_is_transient
	test_broken_then_crash
	test_fdstore_max
	test_no_module
	;;
esac

# --- stop: LEDs and the fd store are released --------------------------------------------------
assert_true "systemctl stop" systemctl stop $U
assert_true "every LED is gone after stop" sh -c "! ls -d $L/sd:* 2>/dev/null | grep -q ."
assert_eq 0 "$(prop NFileDescriptorStore)" "the fd store is empty after stop"
assert_true "stop removes the RuntimeDirectory (kept LEDs' records)" test ! -e /run/uledsd
echo "# the unit's journal, restarts:"
journalctl -u $U -o short-monotonic --no-pager |
	grep -E 'atchdog|Main process|Killing|abort|restart|Started|adopted|fd store|Ready' | sed 's/^/#   /'
