#!/bin/bash
# SPDX-License-Identifier: MIT
# Who may change state (uledsd-dbus(7), SECURITY), with a real dbus-daemon running the repo's
# policy (everyone may call, uledsd decides), a real uledsd and a real polkitd: a plain user is
# denied set/trigger/create/remove/reload with a message naming the group and polkit (exit 1);
# a member of the group uledsd and root are allowed; a user admitted by a polkit .rules file is
# allowed while polkitd runs, denied quickly when it hangs or is gone; CanManage answers for
# each; only root may create an LED named like one a system service drives (x::kbd_backlight).
# No logind in the guest: the polkit rule is keyed on the user, not on a session.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
ctl=$ULEDSD_BUILD_ROOT/ctl/uledsctl
work=$(mktemp -d)
chmod 755 "$work"
L=/sys/class/leds
PLAIN=uledsd-plain GROUPED=uledsd-grouped ADMITTED=uledsd-admitted SLOW=uledsd-slow
DENIED="Permission denied: 'uledsctl [a-z]*' changes state, which uledsd allows for root, members of the group uledsd and whom polkit admits"

# --- users, the group (the repo's sysusers file), the configuration -----------------------
assert_true "the sysusers file creates the group uledsd" systemd-sysusers "$src/conf/sysusers.d/uledsd.conf"
for u in $PLAIN $GROUPED $ADMITTED $SLOW; do
	useradd -M -s /usr/sbin/nologin "$u" || { fail "useradd $u"; exit 1; }
done
usermod -a -G uledsd $GROUPED
mkdir "$work/conf"
cat >"$work/conf/10-access.conf" <<'C'
[uledsd]
pending_max_per_user = 3

[acc:green:a]
max_brightness = 255
backends = dbus

[acc:red:b]
max_brightness = 1
backends = log
C
# polkitd is started by hand below; without its activation file dbus-daemon cannot start it
# behind the test's back when uledsd asks, so "polkitd is gone" really is.
rm -f /usr/share/dbus-1/system-services/org.freedesktop.PolicyKit1.service
start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$(uledsd_bin)" --bus system --config-dir "$work/conf" 2>"$work/log"
assert_true "uledsd is on the bus" wait_for 15 "$ctl" get acc:red:b

# ctl_as USER ARGS...: uledsctl as USER; $out, $err, $rc
ctl_as() {
	local u=$1
	shift
	out=$(as "$u" "$ctl" "$@" 2>"$work/err")
	rc=$?
	err=$(cat "$work/err")
}
can_manage() { # can_manage USER: CanManage as USER says, "b true" or "b false"
	as "$1" busctl --system call io.uledsd1 /io/uledsd1 io.uledsd1.Manager CanManage 2>&1
}
brightness() { cat "$L/$1/brightness"; }

# expect_denied USER WHY ARGS...: uledsctl ARGS as USER exits 1 with the message.
expect_denied() {
	local u=$1 why=$2
	shift 2
	ctl_as "$u" "$@"
	assert_eq 1 "$rc" "$why: 'uledsctl $*' as $u exits 1 (stderr: $err)"
	assert_true "$why: '$*' as $u says it is denied, naming the group and polkit ($err)" \
		grep -q "$DENIED" <<<"$err"
}
# every_change_denied USER WHY: set, trigger, create, remove, reload are all refused.
state() { echo "$(brightness acc:green:a) $(sed -n 's/.*\[\(.*\)\].*/\1/p' "$L/acc:green:a/trigger")"; }
every_change_denied() {
	local u=$1 why=$2 before
	before=$(state)
	expect_denied "$u" "$why" set acc:green:a 9
	expect_denied "$u" "$why" trigger acc:green:a timer
	expect_denied "$u" "$why" create acc:white:"$u" --keep
	expect_denied "$u" "$why" remove acc:white:held
	expect_denied "$u" "$why" reload
	assert_eq "$before" "$(state)" "$why: $u changed neither brightness nor trigger"
	assert_true "$why: $u created nothing" test ! -e "$L/acc:white:$u"
	assert_true "$why: $u removed nothing" test -e "$L/acc:white:held"
}
# every_change_allowed USER WHY VALUE: set, trigger, create, remove, reload all work.
every_change_allowed() {
	local u=$1 why=$2 v=$3
	ctl_as "$u" set acc:green:a "$v"
	assert_eq "0 $v" "$rc $(brightness acc:green:a)" "$why: $u may set (stderr: $err)"
	ctl_as "$u" trigger acc:green:a timer delay_on=100
	assert_eq "0 100" "$rc $(cat "$L/acc:green:a/delay_on" 2>&1)" "$why: $u may select a trigger and its attributes (stderr: $err)"
	ctl_as "$u" trigger acc:green:a none
	ctl_as "$u" create "acc:white:$u" --keep
	assert_eq "0 yes" "$rc $(test -e "$L/acc:white:$u" && echo yes)" "$why: $u may create a transient LED (stderr: $err)"
	ctl_as "$u" remove "acc:white:$u"
	assert_eq "0 gone" "$rc $(test -e "$L/acc:white:$u" || echo gone)" "$why: $u may remove it (stderr: $err)"
	ctl_as "$u" reload
	assert_eq 0 "$rc" "$why: $u may reload (stderr: $err)"
	assert_eq "b true" "$(can_manage "$u")" "$why: CanManage as $u"
}

# --- root ------------------------------------------------------------------------------------
ctl_as root create acc:white:held --keep
assert_eq 0 "$rc" "root may create a transient LED (stderr: $err)"
every_change_allowed root "root" 3
ctl_as root create x::kbd_backlight --keep
assert_eq 0 "$rc" "root may create x::kbd_backlight (stderr: $err)"
ctl_as root remove x::kbd_backlight

# --- without polkitd: a plain user is denied, a group member is allowed ------------------------
t0=$(_lib_usec)
every_change_denied $PLAIN "no polkitd"
echo "# five denied calls without polkitd: $((($(_lib_usec) - t0) / 1000)) ms"
assert_eq "b false" "$(can_manage $PLAIN)" "no polkitd: CanManage as $PLAIN"
out=$(as $PLAIN dbus-send --system --print-reply --dest=io.uledsd1 /io/uledsd1 io.uledsd1.Manager.Reload 2>&1)
assert_true "the D-Bus policy lets a plain user call: the refusal is uledsd's own ($out)" \
	grep -q "Reload() changes state, which uledsd allows for root, members of the group 'uledsd' and whom polkit admits for the action io.uledsd1.manage" <<<"$out"
every_change_denied $ADMITTED "no polkitd yet"
assert_eq "b false" "$(can_manage $ADMITTED)" "no polkitd: CanManage as $ADMITTED"
every_change_allowed $GROUPED "group uledsd" 4
ctl_as $GROUPED create x::kbd_backlight --keep
assert_eq 1 "$rc" "a group member may not create x::kbd_backlight: exit 1"
assert_true "x::kbd_backlight: the message says why and what to do ($err)" \
	grep -q "'x::kbd_backlight' contains 'kbd_backlight', like the names system services find and drive as a real LED (UPower: \*kbd_backlight\*, the audio stack: \*mute\*); only root may create such an LED. Pick another name." <<<"$err"
assert_true "x::kbd_backlight: no LED" test ! -e "$L/x::kbd_backlight"
# UPower and systemd's udev rule match *kbd_backlight* anywhere, not the last part only.
for n in x:white:micmute x::kbd_backlight_1 kbd_backlight:x x::KBD_BACKLIGHT hda::mute_1; do
	ctl_as $GROUPED create "$n" --keep
	assert_true "$n is refused for a group member ($err)" grep -q "only root may create such an LED" <<<"$err"
	assert_true "$n: no LED" test ! -e "$L/$n"
done

# --- what the right to manage does not grant -----------------------------------------------------
# A GPIO line by name or offset, a PWM channel: root (or polkit's create-hardware) only.
create_raw() { # create_raw USER NAME KEY VALUE...: CreateLED with those settings, kept; $out
	local u=$1 n=$2
	shift 2
	out=$(as "$u" gcall /io/uledsd1 io.uledsd1.Manager.CreateLED "$n" "$(gpairs "$@")" true)
}
HW="an LED with a hardware backend (gpio, pwm) drives a line or channel of the board, which uledsd allows for root and whom polkit admits for the action io.uledsd1.create-hardware (the group 'uledsd' is not enough)"
create_raw $GROUPED acc:hw:name backends gpio gpio.line MODEM_RESET
assert_true "a group member cannot take a GPIO line by name ($out)" grep -qF "$HW" <<<"$out"
create_raw $GROUPED acc:hw:offset backends "log, gpio" gpio.chip gpiochip0 gpio.line 3
assert_true "a group member cannot take a GPIO line by offset ($out)" grep -qF "$HW" <<<"$out"
create_raw $GROUPED acc:hw:pwm backends pwm pwm.chip pwmchip0 pwm.channel 0
assert_true "a group member cannot take a PWM channel ($out)" grep -qF "$HW" <<<"$out"
assert_true "none of them exists" test ! -e "$L/acc:hw:name" -a ! -e "$L/acc:hw:offset" -a ! -e "$L/acc:hw:pwm"
create_raw root acc:hw:root backends gpio gpio.line MODEM_RESET
assert_true "root may create an LED with a GPIO line ($out)" grep -q "^(objectpath " <<<"$out"
assert_true "root's LED exists (its line waits for a chip)" test -e "$L/acc:hw:root"
ctl_as root remove acc:hw:root

# Triggers: the built-in allow-list; others, and their attributes, are root's or the admin's.
modprobe ledtrig-activity || fail "modprobe ledtrig-activity"
ctl_as $GROUPED trigger acc:green:a activity
assert_eq 1 "$rc" "a group member may not select a trigger outside manage_triggers (stderr: $err)"
assert_true "the refusal names the list and the key ($err)" \
	grep -q "Trigger 'activity' of LED 'acc:green:a' is not one the right to manage covers (default-on, heartbeat, netdev, none, oneshot, pattern, timer, transient); root may select it, or the administrator may add it to manage_triggers in \[uledsd\] of uledsd.conf(5)." <<<"$err"
ctl_as $GROUPED create acc:white:act --trigger activity --keep
assert_true "nor create an LED with it ($err)" grep -q "trigger 'activity' is not one the right to manage covers" <<<"$err"
assert_true "no such LED" test ! -e "$L/acc:white:act"
ctl_as root trigger acc:green:a activity
assert_eq "0 activity" "$rc $(sed -n 's/.*\[\(.*\)\].*/\1/p' "$L/acc:green:a/trigger")" "root may select it (stderr: $err)"
out=$(as $GROUPED gcall /io/uledsd1/led/acc_3agreen_3aa io.uledsd1.LED.SetTriggerAttributes "$(gpairs invert 1)")
assert_true "a group member may not set the attributes of a trigger outside the list ($out)" \
	grep -q "AccessDenied: Trigger 'activity' of LED 'acc:green:a' is not one the right to manage covers (.*); root may set its attributes, or the administrator" <<<"$out"
assert_eq 0 "$(cat "$L/acc:green:a/invert")" "invert unchanged"
# The admin extends the list: then the group may.
printf '[uledsd]\nmanage_triggers = default activity\n' >"$work/conf/00-policy.conf"
ctl_as root reload
ctl_as $GROUPED trigger acc:green:a activity invert=1
assert_eq "0 1" "$rc $(cat "$L/acc:green:a/invert")" "with manage_triggers = default activity the group may (stderr: $err)"
rm "$work/conf/00-policy.conf"
ctl_as root reload
ctl_as root trigger acc:green:a none

# --- polkitd with a .rules file that admits one user ------------------------------------------
install -D -m 644 "$src/conf/polkit-1/io.uledsd1.policy" /usr/share/polkit-1/actions/io.uledsd1.policy
gate=/run/uledsd-test-polkit-gate
cat >/etc/polkit-1/rules.d/50-uledsd-test.rules <<R
// The test's rule: $ADMITTED may change uledsd's LEDs (keyed on the user: no logind here).
polkit.addRule(function(action, subject) {
	if ((action.id == "io.uledsd1.manage" || action.id == "io.uledsd1.create-hardware") &&
	    subject.user == "$ADMITTED")
		return polkit.Result.YES;
	// A slow answer (a person at a password prompt): calls wait in uledsd meanwhile, as long as
	// the test keeps the gate (polkit ends a helper after 10 s), then they are denied.
	if (action.id == "io.uledsd1.manage" && subject.user == "$SLOW") {
		polkit.spawn(["/bin/sh", "-c", "while [ -e $gate ]; do sleep 0.05; done"]);
		return polkit.Result.NO;
	}
});
R
chmod 644 /etc/polkit-1/rules.d/50-uledsd-test.rules
polkit_on_bus() { busctl --system list --acquired --no-legend --no-pager 2>/dev/null | grep -q '^org\.freedesktop\.PolicyKit1 '; }
t0=$(_lib_usec)
# Started as root, polkitd switches to its own user (it refuses to start as that user).
bg_start /usr/lib/polkit-1/polkitd
polkitd_pid=$BG_PID
assert_true "polkitd is on the bus" wait_for 60 polkit_on_bus
echo "# polkitd on the bus after $((($(_lib_usec) - t0) / 1000)) ms"
# The rules are loaded after the name is taken: wait until the admitted user is admitted.
wait_for 30 sh -c "[ \"\$(setpriv --reuid=$ADMITTED --regid=$ADMITTED --init-groups busctl --system call io.uledsd1 /io/uledsd1 io.uledsd1.Manager CanManage 2>&1)\" = 'b true' ]"
every_change_allowed $ADMITTED "polkit rule" 5
every_change_denied $PLAIN "polkitd running, no rule for the user"
# auth_admin for everyone else: polkit would ask for a password, which is not "may now".
assert_eq "b false" "$(can_manage $PLAIN)" "polkitd running: CanManage as $PLAIN (polkit would ask: auth_admin)"
every_change_allowed $GROUPED "group uledsd, polkitd running" 6

# --- create-hardware: polkit's answer, never the group's -----------------------------------------
create_raw $ADMITTED acc:hw:admitted backends gpio gpio.chip gpiochip0 gpio.line 5
assert_true "whom polkit admits for io.uledsd1.create-hardware may take a GPIO line ($out)" grep -q "^(objectpath " <<<"$out"
ctl_as root remove acc:hw:admitted
create_raw $GROUPED acc:hw:grouped backends gpio gpio.chip gpiochip0 gpio.line 5
assert_true "with polkitd running a group member still may not (auth_admin) ($out)" grep -qF "$HW" <<<"$out"
assert_true "no LED acc:hw:grouped" test ! -e "$L/acc:hw:grouped"

# --- calls waiting for polkit: at most pending_max_per_user (3 here) of one user ------------------
slow_set() { # slow_set LED VALUE OUTFILE: SetBrightness as $SLOW, in the background; it may
	# wait for polkit up to 300 s (interactive), so only the gate decides how long it waits
	as $SLOW gdbus call --system --timeout 60 --interactive --dest io.uledsd1 \
		--object-path "/io/uledsd1/led/$1" --method io.uledsd1.LED.SetBrightness "uint32 $2" >"$3" 2>&1 &
	slow_pids+=($!)
}
slow_wait() { # the slow_set calls (a bare wait would wait for polkitd and uledsd too)
	wait "${slow_pids[@]}"
	slow_pids=()
}
# uledsd's questions to polkitd, seen on the bus: a call waits for polkit once its question is out.
dbus-monitor --system "type='method_call',interface='org.freedesktop.PolicyKit1.Authority',member='CheckAuthorization'" \
	>"$work/questions" 2>&1 &
monitor_pid=$!
questions() { grep -c "member=CheckAuthorization" "$work/questions"; }
questions_reach() { [ "$(questions)" -ge "$1" ]; }
slow_pids=()
touch "$gate"
q0=$(questions)
for k in 1 2 3; do slow_set acc_3agreen_3aa $k "$work/slow$k"; done
assert_true "3 calls of $SLOW wait for polkit" wait_for 30 questions_reach $((q0 + 3))
t0=$(_lib_usec)
out=$(as $SLOW busctl --system --timeout=60 call io.uledsd1 /io/uledsd1/led/acc_3agreen_3aa io.uledsd1.LED SetBrightness u 4 2>&1)
ms=$((($(_lib_usec) - t0) / 1000))
assert_true "a 4th waiting call of one user is refused at once, naming the key ($out, $ms ms)" \
	grep -q "3 calls of this user wait for their authorization already (pending_max_per_user = 3 in \[uledsd\] of uledsd.conf(5))" <<<"$out"
out=$(as $PLAIN busctl --system --timeout=20 call io.uledsd1 /io/uledsd1 io.uledsd1.Manager CanManage 2>&1)
assert_eq "b false" "$out" "another user is still answered meanwhile"
rm "$gate"
slow_wait
for k in 1 2 3; do
	assert_true "waiting call $k was denied by polkit in the end ($(cat "$work/slow$k"))" grep -q "changes state" "$work/slow$k"
done
# The LED goes while its calls wait: the answered calls never run again (sd-bus answers
# UnknownObject itself); uledsd forgets them, so they do not count against the user forever.
ctl_as root create acc:white:gone --keep
touch "$gate"
q0=$(questions)
for k in 1 2 3; do slow_set acc_3awhite_3agone $k "$work/gone$k"; done
assert_true "3 calls on acc:white:gone wait for polkit" wait_for 30 questions_reach $((q0 + 3))
ctl_as root remove acc:white:gone
rm "$gate"
slow_wait
kill "$monitor_pid"
for k in 1 2 3; do
	assert_true "a call on the removed LED ends with UnknownObject ($(cat "$work/gone$k"))" grep -qi "unknown object\|UnknownObject" "$work/gone$k"
done
_lib_sleep 5
for k in 1 2 3; do slow_set acc_3agreen_3aa $k "$work/after$k"; done
slow_wait
for k in 1 2 3; do
	assert_true "after the LED went, the user's calls wait again, not refused for the quota ($(cat "$work/after$k"))" \
		grep -q "changes state" "$work/after$k"
done

# --- polkitd hangs, then is gone: denied, quickly -----------------------------------------------
kill -STOP "$polkitd_pid"
t0=$(_lib_usec)
ctl_as $ADMITTED set acc:green:a 7
ms=$((($(_lib_usec) - t0) / 1000))
echo "# set with polkitd stopped (SIGSTOP): exit $rc after $ms ms"
assert_eq 1 "$rc" "polkitd hangs: $ADMITTED is denied (stderr: $err)"
assert_true "polkitd hangs: denied within 10 s (took $ms ms)" test "$ms" -lt 10000
# busctl allows interactive authorization: CanManage must not wait for a prompt (300 s) anyway.
assert_eq "b false" "$(can_manage $ADMITTED)" "polkitd hangs: CanManage as $ADMITTED (polkit's 5 s, not a prompt's 300 s)"
assert_true "uledsd still answers others while polkitd hangs" "$ctl" set acc:green:a 8
kill -CONT "$polkitd_pid"
kill "$polkitd_pid"
assert_true "polkitd is gone" wait_for 10 sh -c "! kill -0 $polkitd_pid 2>/dev/null"
t0=$(_lib_usec)
ctl_as $ADMITTED set acc:green:a 7
ms=$((($(_lib_usec) - t0) / 1000))
echo "# set with polkitd gone: exit $rc after $ms ms"
assert_eq 1 "$rc" "polkitd gone: $ADMITTED is denied (stderr: $err)"
assert_true "polkitd gone: denied within 10 s (took $ms ms)" test "$ms" -lt 10000
every_change_denied $ADMITTED "polkitd gone"
assert_eq "b false" "$(can_manage $ADMITTED)" "polkitd gone: CanManage as $ADMITTED"
assert_eq "b true" "$(can_manage $GROUPED)" "polkitd gone: CanManage as a group member"
assert_eq "b true" "$(can_manage root)" "CanManage as root"

assert_true "uledsd kept running" "$ctl" get acc:red:b
grep -i "error\|warn" "$work/log" | sed 's/^/# uledsd: /' | head -n 20
