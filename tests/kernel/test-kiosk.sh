#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd-panel-kiosk.service under systemd as PID 1 (vm-run.sh --systemd), issue 31: the
# installed unit runs cage with uledsd-panel --kiosk --read-only as uledsd-kiosk in a logind
# session on tty1; the panel draws uledsd's LEDs full screen and follows them (grim takes the
# screen of cage's headless output: the VM has no display), a failing backend's state is
# on screen, the panel cannot change anything, and a stop ends cage and the session.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
. "$(dirname "$0")/lib.sh"

K=uledsd-panel-kiosk.service
L=/sys/class/leds
RED=kiosk:red:power
build=${ULEDSD_BUILD_ROOT:?}
out=$build/test-kiosk
[ "$(cat /proc/1/comm)" = systemd ] || { fail "PID 1 is not systemd: run with vm-run.sh --systemd"; exit 1; }
for tool in cage grim convert Xwayland; do
	command -v "$tool" >/dev/null || { fail "$tool is missing: run tests/setup-deps.sh"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"
timeout 90 systemctl is-system-running --wait >/dev/null
meson install -C "$build" --no-rebuild --quiet >/tmp/install.log 2>&1 ||
	{ cat /tmp/install.log; fail "meson install into the guest root"; exit 1; }
# As a package's postinst does (dh_installsysusers): the users and groups of sysusers.d.
systemd-sysusers
assert_true "systemd-sysusers made the user uledsd-kiosk" getent passwd uledsd-kiosk
assert_true "meson install puts the kiosk unit in place" test -e "$(systemctl show -p FragmentPath --value $K)"

mkdir -p /etc/uledsd.d
cat >/etc/uledsd.d/10-kiosk.conf <<'C'
[kiosk:red:power]
default_brightness = 255
backends = dbus

[kiosk:green:status]
backends = dbus

; no such chip: the gpio backend waits, and the kiosk says so on screen
[kiosk:white:gpio]
backends = gpio dbus
gpio.chip = no-such-chip
gpio.line = 0
C
systemctl daemon-reload
systemctl start uledsd.service
assert_true "uledsd.service is active with its LEDs" wait_for 30 test -e "$L/$RED/brightness" || exit 1
echo 255 >"$L/$RED/brightness"

# The VM has no display: cage's headless output, drawn by wlroots' software renderer.
mkdir -p /run/systemd/system/$K.d
cat >/run/systemd/system/$K.d/50-headless.conf <<'C'
[Service]
Environment=WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman
Environment=GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1
C
systemctl daemon-reload
assert_eq disabled "$(systemctl is-enabled $K)" "the kiosk unit is not enabled by installing it"
systemctl start $K
assert_true "the kiosk unit is active" wait_for 20 systemctl is-active --quiet $K ||
	{ journalctl -u $K --no-pager | tail -n 30; exit 1; }
main=$(systemctl show -p MainPID --value $K)
uid=$(ps -o uid= -p "$main" | tr -d ' ')
assert_eq cage "$(ps -o comm= -p "$main")" "its main process is cage"
assert_eq "$(id -u uledsd-kiosk)" "$uid" "cage runs as uledsd-kiosk (sysusers), not root"
panel_pid() { pgrep -u "$uid" -x uledsd-panel; }
assert_true "cage runs uledsd-panel" wait_for 20 panel_pid
assert_true "uledsd-panel --kiosk --read-only" \
	grep -qz -- '--read-only' "/proc/$(panel_pid)/cmdline"
assert_true "a logind session on tty1 for that user" \
	sh -c "loginctl list-sessions --no-legend | grep -q ' $uid .* tty1'"

export XDG_RUNTIME_DIR=/run/user/$uid WAYLAND_DISPLAY=wayland-0
assert_true "cage's Wayland socket" wait_for 20 test -S "$XDG_RUNTIME_DIR/wayland-0"
# red_share NAME: the share of bright red pixels in screenshot NAME.
red_share() {
	convert "$out/$1.png" -fx '(r > 0.75 && g < 0.4 && b < 0.4) ? 1 : 0' -format '%[fx:mean]' info:
}
# shot_until NAME TEST: screenshots of cage's output until TEST (on red_share) holds.
shot_until() {
	local i share
	for i in $(seq 1 60); do
		grim "$out/$1.png" 2>/dev/null && share=$(red_share "$1") &&
			awk -v s="$share" "BEGIN { exit !($2) }" && { echo "# $1: red share $share"; return 0; }
		_lib_sleep 1
	done
	echo "# $1: red share ${share:-none}"
	return 1
}
assert_true "the kiosk shows the lit red lamp full screen (first frame under TCG)" shot_until 01-kiosk 's > 0.002'
read -r w h <<<"$(identify -format '%w %h' "$out/01-kiosk.png")"
assert_true "the screenshot is cage's whole output (${w}x$h)" test "$w" -ge 640 -a "$h" -ge 480
echo 0 >"$L/$RED/brightness"
assert_true "the kiosk follows uledsd: red off, no red on screen" shot_until 02-red-off 's < 0.0005'
echo 255 >"$L/$RED/brightness"
assert_true "and on again" shot_until 03-red-on 's > 0.002'
journalctl -u $K -o cat --no-pager >"$out/journal.log"
assert_true "the panel wrote no GTK critical to the journal" sh -c "! grep -q 'CRITICAL' '$out/journal.log'"

systemctl stop $K
assert_true "stop: the unit is inactive" wait_for 20 sh -c "! systemctl is-active --quiet $K"
assert_true "stop: no cage or panel left" wait_for 10 sh -c "! pgrep -x cage && ! pgrep -x uledsd-panel"
assert_true "stop: the logind session is gone" \
	wait_for 10 sh -c "! loginctl list-sessions --no-legend | grep -q ' $uid '"
echo "# screenshots in $out"
exit 0
