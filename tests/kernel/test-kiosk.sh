#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd-panel-kiosk.service under systemd as PID 1 (vm-run.sh --systemd), issue 31: the
# installed unit runs cage with uledsd-panel --kiosk --read-only as uledsd-kiosk in a logind
# session on tty1; the panel draws uledsd's LEDs full screen and follows them, a failing
# backend's state is on screen, and a stop ends cage and the session. The VM has no display:
# cage runs on wlroots' headless output, and the panel reports each frame it drew
# (--debug-geometry, given through the unit's ULEDSD_PANEL_OPTIONS) into the journal. (grim
# reads only black from that output: wlroots 0.15's screencopy fails on the software renderer.)
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
. "$(dirname "$0")/lib.sh"

K=uledsd-panel-kiosk.service
L=/sys/class/leds
RED=kiosk:red:power
build=${ULEDSD_BUILD_ROOT:?}
[ "$(cat /proc/1/comm)" = systemd ] || { fail "PID 1 is not systemd: run with vm-run.sh --systemd"; exit 1; }
for tool in cage Xwayland; do
	command -v "$tool" >/dev/null || { fail "$tool is missing: run tests/setup-deps.sh"; exit 1; }
done
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

# cage or Xwayland missing (PATH finds neither here): the unit fails at once and says what to
# install, instead of a restart loop of cryptic cage errors.
mkdir -p /run/systemd/system/$K.d
printf '[Service]\nEnvironment=PATH=/nonexistent\nRestart=no\n' >/run/systemd/system/$K.d/10-no-cage.conf
systemctl daemon-reload
systemctl start $K 2>/dev/null
assert_true "without cage: the unit fails" wait_for 10 systemctl is-failed --quiet $K
assert_true "without cage: systemctl status says what to install" \
	sh -c "systemctl status --no-pager -n 20 $K | grep -q 'cage is not installed; apt install cage xwayland'"
rm /run/systemd/system/$K.d/10-no-cage.conf
systemctl reset-failed $K

# The VM has no display: cage's headless output, drawn by wlroots' software renderer.
mkdir -p /run/systemd/system/$K.d
cat >/run/systemd/system/$K.d/50-headless.conf <<'C'
[Service]
Environment=WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman
Environment=GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1
Environment=ULEDSD_PANEL_OPTIONS=--debug-geometry
C
systemctl daemon-reload
assert_eq disabled "$(systemctl is-enabled $K)" "the kiosk unit is not enabled by installing it"
systemctl start $K
assert_true "the kiosk unit is active" wait_for 20 systemctl is-active --quiet $K ||
	{ journalctl -u $K --no-pager | tail -n 30; exit 1; }
# Type=simple is active at the fork: the main process is "(cage)" until PAM is set up and
# cage is executed, as uledsd-kiosk.
cage_up() { main=$(systemctl show -p MainPID --value $K) && [ "$(ps -o comm= -p "$main")" = cage ]; }
# Under TCG on a loaded host PAM and logind took more than 20 s once (CI, 2026-12-08).
assert_true "its main process is cage" wait_for 60 cage_up
uid=$(ps -o uid= -p "$main" | tr -d ' ')
assert_eq "$(id -u uledsd-kiosk)" "$uid" "cage runs as uledsd-kiosk (sysusers), not root"
panel_pid() { pgrep -u "$uid" -x uledsd-panel; }
assert_true "cage runs uledsd-panel" wait_for 60 panel_pid
assert_true "uledsd-panel --kiosk --read-only" \
	grep -qz -- '--read-only' "/proc/$(panel_pid)/cmdline"
assert_true "a logind session on tty1 for that user" \
	sh -c "loginctl list-sessions --no-legend | grep -q ' $uid .* tty1'"

# The panel's report of its last frame (uledsd-panel(1), --debug-geometry), from the journal:
# the service's output stream (identifier cage), which journalctl -u does not select once
# pam_systemd has moved cage and the panel into the session's scope.
last_block() {
	journalctl SYSLOG_IDENTIFIER=cage -o cat --no-pager |
		awk '/^geometry /{b=""} {b=b $0 "\n"} /^end$/{l=b} END{printf "%s", l}'
}
field() { # field KEY [LED]: KEY of the window line, or of LED's lamp line
	if [ $# -eq 1 ]; then
		last_block | sed -n "s/^geometry .*\b$1=\([^ ]*\).*/\1/p"
	else
		last_block | grep " name=$2\$" | sed -n "s/^lamp .*\b$1=\([^ ]*\).*/\1/p"
	fi
}
drawn() { [ "$(field "$1" ${3:+"$3"})" = "$2" ]; } # drawn KEY VALUE [LED]
assert_true "the panel draws uledsd's 3 LEDs (first frame under TCG)" wait_for 90 drawn lamps 3 ||
	{ journalctl -o short-monotonic --no-pager -n 60 | sed 's/^/# /'; exit 1; }
assert_true "online: it reached uledsd on the system bus" wait_for 10 drawn state online
last_block | sed 's/^/# /'
assert_eq "1280 720" "$(field w) $(field h)" "full screen: cage's whole (headless) output"
assert_eq 1 "$(field ro)" "--read-only, as the unit says"
assert_eq 0 "$(field manage)" "uledsd-kiosk may not change LEDs anyway (not root, not in group uledsd)"
assert_true "the lit red lamp" drawn brightness 255 $RED
assert_true "large kiosk lamps (w=$(field w $RED) >= 150)" test "$(field w $RED)" -ge 150
assert_true "the waiting gpio backend's state is written under its lamp (diag=1)" \
	drawn diag 1 kiosk:white:gpio
echo 0 >"$L/$RED/brightness"
assert_true "the kiosk follows uledsd: red off" wait_for 20 drawn brightness 0 $RED
echo 255 >"$L/$RED/brightness"
assert_true "and on again" wait_for 20 drawn brightness 255 $RED
assert_true "the panel wrote no GTK critical to the journal" \
	sh -c "! journalctl SYSLOG_IDENTIFIER=cage -o cat --no-pager | grep -q CRITICAL"

systemctl stop $K
assert_true "stop: the unit is inactive" wait_for 20 sh -c "! systemctl is-active --quiet $K"
assert_true "stop: no cage or panel left" wait_for 10 sh -c "! pgrep -x cage && ! pgrep -x uledsd-panel"
assert_true "stop: the logind session is gone" \
	wait_for 10 sh -c "! loginctl list-sessions --no-legend | grep -q ' $uid '"
exit 0
