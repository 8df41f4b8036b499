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
PLAIN=uledsd-plain GROUPED=uledsd-grouped ADMITTED=uledsd-admitted
DENIED="Permission denied: 'uledsctl [a-z]*' changes state, which uledsd allows for root, members of the group uledsd and whom polkit admits"

# --- users, the group (the repo's sysusers file), the configuration -----------------------
assert_true "the sysusers file creates the group uledsd" systemd-sysusers "$src/conf/sysusers.d/uledsd.conf"
for u in $PLAIN $GROUPED $ADMITTED; do
	useradd -M -s /usr/sbin/nologin "$u" || { fail "useradd $u"; exit 1; }
done
usermod -a -G uledsd $GROUPED
mkdir "$work/conf"
cat >"$work/conf/10-access.conf" <<'C'
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

as() { # as USER CMD...: CMD with USER's uid, gid and groups
	local u=$1
	shift
	if [ "$u" = root ]; then "$@"; else setpriv --reuid="$u" --regid="$u" --init-groups "$@"; fi
}
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
	grep -q "'x::kbd_backlight' ends in ':kbd_backlight', a name system services find and drive as a real LED; only root may create such an LED. Pick another function name." <<<"$err"
assert_true "x::kbd_backlight: no LED" test ! -e "$L/x::kbd_backlight"
ctl_as $GROUPED create x:white:micmute --keep
assert_true "x:white:micmute is refused as well ($err)" grep -q "only root may create such an LED" <<<"$err"

# --- polkitd with a .rules file that admits one user ------------------------------------------
install -D -m 644 "$src/conf/polkit-1/io.uledsd1.policy" /usr/share/polkit-1/actions/io.uledsd1.policy
cat >/etc/polkit-1/rules.d/50-uledsd-test.rules <<R
// The test's rule: $ADMITTED may change uledsd's LEDs (keyed on the user: no logind here).
polkit.addRule(function(action, subject) {
	if (action.id == "io.uledsd1.manage" && subject.user == "$ADMITTED")
		return polkit.Result.YES;
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
