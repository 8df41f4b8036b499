#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd-panel under Xvfb against a real uledsd and dbus-daemon: lamps follow sysfs (measured in
# screenshots, by pixels), Reload adds and removes lamps, a daemon restart greys the view and it
# comes back, a click as root changes sysfs and a plain user's does not, --compact is one row, an
# offloaded blink (timer trigger) blinks the lamp by the panel's own timer, and --kiosk goes
# fullscreen on Wayland (weston's headless backend) and ends with status 0 on SIGTERM.
# One window-mode panel runs through all of it (GTK's first frame costs 5-10 s under TCG), then
# one --compact panel as a plain user.
# usage: test-panel.sh PANEL_BINARY
# Screenshots and the panel's output stay in $ULEDSD_BUILD_ROOT/test-panel/ (CI artefacts).
. "$(dirname "$0")/lib.sh"

panel=${1:?usage: test-panel.sh PANEL_BINARY}
src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_bin) || exit 1
out=$ULEDSD_BUILD_ROOT/test-panel
work=$(mktemp -d)
L=/sys/class/leds
RED=panel:red:power
for tool in Xvfb xwd convert xdotool dbus-run-session weston; do
	command -v "$tool" >/dev/null || { fail "$tool is missing: run tests/setup-deps.sh"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"

cat >"$work/10-panel.conf" <<'C'
[panel:red:power]
backends = dbus

[panel:green:status]
max_brightness = 1
trigger = default-on
backends = dbus

[panel:amber:disk]
default_brightness = 110
backends = dbus

[panel:blue:wifi]
backends = dbus

[panel::capslock]
max_brightness = 1
backends = dbus

; a chip that is not there: the gpio backend waits, the lamp carries a mark
[panel:white:gpio]
default_brightness = 255
backends = gpio dbus
gpio.chip = no-such-chip
gpio.line = 0
C

start_dbus "$src/conf/io.uledsd1.conf" || exit 1
start_uledsd() {
	bg_start "$uledsd" --bus system --config-dir "$work" 2>>"$work/uledsd.log"
	uledsd_pid=$BG_PID
}
serving() { busctl --system --no-pager list 2>/dev/null | grep -q '^io.uledsd1 '; }
start_uledsd
assert_true "uledsd serves io.uledsd1" wait_for 20 serving || exit 1

export DISPLAY=:99 GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1 GDK_BACKEND=x11
# A session bus of its own, so GLib neither autolaunches one nor complains about none.
sbus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 --nosyslog) || exit 1
export DBUS_SESSION_BUS_ADDRESS=${sbus%%$'\n'*}
_lib_bg_pids+=("${sbus##*$'\n'}")
bg_start Xvfb :99 -screen 0 1024x640x24 -nolisten tcp
assert_true "Xvfb answers" wait_for 30 eval 'xdotool getdisplaygeometry >/dev/null 2>&1' || exit 1

# --- the panel's own report of what it drew ---------------------------------------------------
# --debug-geometry prints, after each frame that changed, a block:
#   geometry w=W h=H state=STATE lamps=N manage=0|1
#   lamp x= y= w= h= brightness= max= blink=ON_MS/OFF_MS lit=0|1 triggers=N trigger= online= ok= mixed=RRGGBB|- name=
#   (one per lamp)
#   end
# lit=0 while a blink is in its dark half; blink=0/0 when none runs.
geo=$out/geometry.log
last_block() { awk '/^geometry /{b=""} {b=b $0 "\n"} /^end$/{l=b} END{printf "%s", l}' "$geo"; }
# field KEY [LED]: KEY of the window line, or of LED's lamp line, in the last frame.
field() {
	if [ $# -eq 1 ]; then
		last_block | sed -n "s/^geometry .*\b$1=\([^ ]*\).*/\1/p"
	else
		last_block | grep " name=$2\$" | sed -n "s/^lamp .*\b$1=\([^ ]*\).*/\1/p"
	fi
}
drawn() { [ "$(field "$1" ${3:+"$3"})" = "$2" ]; } # drawn KEY VALUE [LED]
no_lamp() { ! last_block | grep -q " name=$1\$"; }
all_lamps() { # all_lamps KEY VALUE: every lamp of the last frame has KEY=VALUE
	last_block | grep -q '^lamp ' && ! last_block | grep '^lamp ' | grep -vq "\b$1=$2 "
}

window_id() { xdotool search --onlyvisible --name '^LEDs$' 2>/dev/null | head -n1; }
# shot NAME: the panel's window as $out/NAME.png (the lamp coordinates are the window's).
shot() {
	_lib_sleep 0.3 # after-paint is printed once GTK handed the frame to X
	xwd -silent -id "$(window_id)" | convert xwd:- "$out/$1.png"
}
# mean_rgb NAME LED: mean colour "R G B" (0-255) of LED's lamp box in screenshot NAME.
mean_rgb() {
	local x y w h
	x=$(field x "$2") y=$(field y "$2") w=$(field w "$2") h=$(field h "$2")
	convert "$out/$1.png" -crop "${w}x${h}+${x}+${y}" +repage -scale '1x1!' \
		-format '%[fx:int(255*r+0.5)] %[fx:int(255*g+0.5)] %[fx:int(255*b+0.5)]' info:
}

# --- start: every LED as a lamp ----------------------------------------------------------------
echo 0 >"$L/$RED/brightness"
bg_start "$panel" --system --debug-geometry >"$geo" 2>"$out/panel-stderr.log"
panel_pid=$BG_PID
assert_true "the panel draws 6 lamps (first frame under TCG: 5-10 s)" \
	wait_for 90 drawn lamps 6 || { cat "$out/panel-stderr.log"; exit 1; }
assert_true "the panel is online" drawn state online
assert_true "root may change LEDs: controls enabled (manage=1)" wait_for 10 drawn manage 1
last_block | sed 's/^/# /'
assert_true "a window exists" test -n "$(window_id)"
assert_eq "panel::capslock panel:amber:disk panel:blue:wifi panel:green:status panel:red:power panel:white:gpio" \
	"$(last_block | sed -n 's/^lamp .* name=//p' | tr '\n' ' ' | sed 's/ $//')" "lamps sorted by name"
assert_true "amber's brightness 110 is drawn" drawn brightness 110 panel:amber:disk
assert_true "the waiting gpio backend marks its lamp (ok=0)" drawn ok 0 panel:white:gpio
assert_true "working backends carry no mark (ok=1)" drawn ok 1 panel:red:power
assert_true "the waiting gpio backend's state shows under its name, no hover needed (diag=1)" \
	drawn diag 1 panel:white:gpio
assert_true "no such line under a lamp whose backends work (diag=0)" drawn diag 0 panel:red:power
n=$(wc -w <"$L/$RED/trigger")
assert_true "the trigger menu has the kernel's $n triggers (AvailableTriggers)" drawn triggers "$n" $RED

# --- red at 0, then at max: dark red to bright red, by pixels ----------------------------------
assert_true "red at 0 is drawn" wait_for 10 drawn brightness 0 $RED
shot 01-red-off
read -r r0 g0 b0 <<<"$(mean_rgb 01-red-off $RED)"
echo 255 >"$L/$RED/brightness"
assert_true "red at 255 is drawn (PropertiesChanged)" wait_for 10 drawn brightness 255 $RED
shot 02-red-on
read -r r1 g1 b1 <<<"$(mean_rgb 02-red-on $RED)"
echo "# red lamp box, mean RGB: off $r0 $g0 $b0, on $r1 $g1 $b1"
assert_true "off: the lamp box is dark (mean red $r0 < 80)" test "$r0" -lt 80
assert_true "on: the mean red rose by 40 or more ($r0 -> $r1)" test $((r1 - r0)) -ge 40
assert_true "on: it is red, not white (red $r1 >= 2 x green $g1 and 2 x blue $b1)" \
	test "$r1" -ge $((2 * g1)) -a "$r1" -ge $((2 * b1))
assert_true "off: it was already reddish, a dark red (red $r0 > green $g0)" test "$r0" -gt "$g0"

# --- an offloaded blink: the lamp blinks by the panel's own timer ------------------------------
# The timer trigger hands the delays to uledsd once (blink = offload, the default); the Blink
# property carries them and the panel toggles the lamp itself, no D-Bus traffic per blink.
BLUE=panel:blue:wifi
echo timer >"$L/$BLUE/trigger"
echo 4000 >"$L/$BLUE/delay_on"
echo 4000 >"$L/$BLUE/delay_off"
assert_true "timer on blue: the panel has its Blink, 4000/4000 ms (PropertiesChanged)" \
	wait_for 10 drawn blink 4000/4000 $BLUE
assert_true "Brightness is the level it blinks at (255, from 0: the kernel's rule)" \
	drawn brightness 255 $BLUE
blue_lit() { drawn lit "$1" $BLUE; }
# blink_shot NAME LIT: a screenshot in the half LIT, taken right as that half begins (a shot
# costs ~1 s under TCG, more on a loaded host: a half is 4 s), and taken again when the lamp
# toggled before xwd got it.
blink_shot() {
	local n try wid
	wid=$(window_id)
	for try in 1 2 3; do
		wait_for 10 blue_lit "$((1 - $2))" && wait_for 10 blue_lit "$2" || return 1
		n=$(wc -l <"$geo")
		_lib_sleep 0.3
		xwd -silent -id "$wid" >"$work/$1.xwd"
		tail -n +"$((n + 1))" "$geo" | grep " name=$BLUE\$" | grep -vq " lit=$2 " && continue
		convert "xwd:$work/$1.xwd" "$out/$1.png" && return 0
	done
	return 1
}
assert_true "the blinking lamp is drawn lit (screenshot)" blink_shot 03-blink-lit 1
read -r r1 g1 b1 <<<"$(mean_rgb 03-blink-lit $BLUE)"
assert_true "then dark, with no new state from uledsd (screenshot)" blink_shot 03-blink-dark 0
read -r r0 g0 b0 <<<"$(mean_rgb 03-blink-dark $BLUE)"
assert_true "and lit again" wait_for 10 blue_lit 1
echo "# blue lamp box, mean RGB: lit half $r1 $g1 $b1, dark half $r0 $g0 $b0"
assert_true "the screenshots differ: blue rose by 40 or more in the lit half ($b0 -> $b1)" \
	test $((b1 - b0)) -ge 40
assert_true "the label shows the trigger set in sysfs by someone else (timer)" wait_for 10 drawn trigger timer $BLUE
echo none >"$L/$BLUE/trigger"
assert_true "trigger none ends the blink: blink=0/0" wait_for 10 drawn blink 0/0 $BLUE
assert_true "and the label follows (Trigger's PropertiesChanged): none" wait_for 10 drawn trigger none $BLUE
blue_off() { drawn brightness 0 $BLUE && drawn lit 1 $BLUE; }
assert_true "and the lamp is plain off: brightness 0, no blink phase left (lit=1)" \
	wait_for 10 blue_off

# --- Reload adds a lamp (a multicolour one: its mixed light), then removes it -------------------
NEW=panel:rgb:new
cat >"$work/20-new.conf" <<'C'
[panel:rgb:new]
color = rgb
multi_intensity = 255 0 255
default_brightness = 255
backends = dbus
C
busctl --system call io.uledsd1 /io/uledsd1 io.uledsd1.Manager Reload >/dev/null
assert_true "an LED added by Reload appears (InterfacesAdded)" wait_for 15 drawn lamps 7
assert_true "it is $NEW, lit" drawn brightness 255 $NEW
assert_true "multicolour: drawn in its mixed light, red + blue (Color)" wait_for 10 drawn mixed ff00ff $NEW
assert_true "plain LEDs have no mixed light" drawn mixed - $RED
shot 04-added
read -r r1 g1 b1 <<<"$(mean_rgb 04-added $NEW)"
echo 0 255 0 >"$L/$NEW/multi_intensity"
assert_true "multi_intensity 0 255 0 in sysfs: drawn green (Color's PropertiesChanged)" \
	wait_for 10 drawn mixed 00ff00 $NEW
shot 04-added-green
read -r r2 g2 b2 <<<"$(mean_rgb 04-added-green $NEW)"
echo "# multicolour lamp box, mean RGB: magenta $r1 $g1 $b1, green $r2 $g2 $b2"
assert_true "magenta by pixels (red $r1 and blue $b1 >= 2 x green $g1)" \
	test "$r1" -ge $((2 * g1)) -a "$b1" -ge $((2 * g1))
assert_true "green by pixels (green $g2 >= 2 x red $r2 and 2 x blue $b2)" \
	test "$g2" -ge $((2 * r2)) -a "$g2" -ge $((2 * b2))
rm "$work/20-new.conf"
busctl --system call io.uledsd1 /io/uledsd1 io.uledsd1.Manager Reload >/dev/null
assert_true "an LED removed by Reload disappears (InterfacesRemoved)" wait_for 15 drawn lamps 6
assert_true "$NEW is gone" no_lamp $NEW
shot 05-removed

# --- a click on the lamp, as root, changes sysfs -----------------------------------------------
click_red() {
	local x y w h
	x=$(field x $RED) y=$(field y $RED) w=$(field w $RED) h=$(field h $RED)
	xdotool mousemove --window "$(window_id)" $((x + w / 2)) $((y + h / 2)) click 1
	xdotool mousemove 1020 636 # away, so no tooltip covers the next screenshot
}
sysfs_is() { [ "$(cat "$L/$RED/brightness")" = "$1" ]; }
click_red
assert_true "a click on the lit red lamp writes 0 to sysfs" wait_for 10 sysfs_is 0
assert_true "and the lamp is drawn off" wait_for 10 drawn brightness 0 $RED
click_red
assert_true "a second click writes max_brightness (255)" wait_for 10 sysfs_is 255
assert_true "and the lamp is drawn lit" wait_for 10 drawn brightness 255 $RED
shot 06-clicked

# --- daemon restart: the view greys out and comes back -----------------------------------------
kill "$uledsd_pid"
assert_true "uledsd gone: the panel says offline" wait_for 15 drawn state offline
assert_true "the lamps stay, greyed (online=0)" wait_for 5 all_lamps online 0
assert_true "all 6 are still there" drawn lamps 6
shot 07-offline
read -r ro go bo <<<"$(mean_rgb 07-offline $RED)"
echo "# red lamp box while offline: $ro $go $bo"
assert_true "an offline lamp shows no red (red $ro < green $go + 20)" test "$ro" -lt $((go + 20))
start_uledsd
assert_true "uledsd back: the panel is online again" wait_for 30 drawn state online
assert_true "every lamp is live again (online=1)" wait_for 10 all_lamps online 1
assert_true "with the LEDs of the new uledsd (6)" drawn lamps 6
assert_true "red came back at its default, 0" drawn brightness 0 $RED
echo 255 >"$L/$RED/brightness"
assert_true "and it follows the new uledsd's signals" wait_for 10 drawn brightness 255 $RED
shot 08-back
kill "$panel_pid"

# --- --compact, as a plain user: one row, controls disabled -------------------------------------
# CanManage answers false for nobody (neither root, nor in group uledsd, nor admitted by polkit).
geo=$out/geometry-compact.log
chmod 755 "$out"
bg_start setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp \
	"$panel" --compact --debug-geometry >"$geo" 2>"$out/panel-compact-stderr.log"
compact_pid=$BG_PID
assert_true "--compact draws 6 lamps" wait_for 90 drawn lamps 6 || exit 1
assert_true "a plain user's panel disables the controls (manage=0)" wait_for 10 drawn manage 0
click_red
_lib_sleep 2
assert_eq 255 "$(cat "$L/$RED/brightness")" "a plain user's click changes nothing"
last_block | sed 's/^/# /'
one_row() {
	last_block | awk '
		/^geometry / { for (i = 2; i <= NF; i++) { split($i, kv, "="); win[kv[1]] = kv[2] } }
		/^lamp / {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); l[kv[1]] = kv[2] }
			if (y == "") y = l["y"]
			if (l["y"] != y || l["x"] + l["w"] > win["w"]) bad = 1
		}
		END { exit bad || y == "" }'
}
assert_true "--compact: every lamp on the same row, inside the window" one_row
h=$(field h)
assert_true "--compact: the window is a strip (height $h < 120)" test "$h" -lt 120
shot 09-compact
kill "$compact_pid" # the next window is found by its title: only one may be there
assert_true "the compact panel is gone" wait_for 10 sh -c "! kill -0 $compact_pid 2>/dev/null"

# --- --read-only --lamp-size 60 --columns 3, as root: shown, not changed; rows of 3 ------------
geo=$out/geometry-ro.log
bg_start "$panel" --read-only --lamp-size 60 --columns 3 --debug-geometry >"$geo" 2>"$out/panel-ro-stderr.log"
ro_pid=$BG_PID
assert_true "--read-only draws 6 lamps" wait_for 90 drawn lamps 6 || { cat "$out/panel-ro-stderr.log"; exit 1; }
read_only_as_root() { drawn ro 1 && drawn manage 1; }
assert_true "--read-only says so (ro=1), though root may manage (manage=1)" wait_for 10 read_only_as_root
last_block | sed 's/^/# /'
assert_eq 60 "$(field w $RED)" "--lamp-size 60: the lamp is 60 pixels wide"
assert_eq 60 "$(field h $RED)" "--lamp-size 60: and 60 high"
rows=$(last_block | sed -n 's/^lamp .* y=\([0-9]*\) .*/\1/p' | sort -u | wc -l)
per_row=$(last_block | sed -n 's/^lamp .* y=\([0-9]*\) .*/\1/p' | sort | uniq -c | awk '{ print $1 }' | sort -n | tail -n 1)
assert_eq "2 3" "$rows $per_row" "--columns 3: 6 lamps in 2 rows of 3"
assert_true "--read-only still shows the diagnostics (diag=1)" drawn diag 1 panel:white:gpio
before=$(cat "$L/$RED/brightness")
assert_eq 255 "$before" "red is lit, so a click that worked would switch it off"
click_red
_lib_sleep 2
assert_eq "$before" "$(cat "$L/$RED/brightness")" "--read-only: root's click on a lamp changes nothing"
shot 10-read-only
kill "$ro_pid"

# --- --kiosk on Wayland: weston's headless backend grants the fullscreen Xvfb cannot -----------
# desktop-shell, not kiosk-shell: that one would make any window fullscreen, --kiosk or not.
export XDG_RUNTIME_DIR=$work/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
bg_start weston --backend=headless-backend.so --socket=wayland-uledsd --width=1024 \
	--height=640 --idle-time=0 >"$out/weston.log" 2>&1
assert_true "weston (headless) listens" wait_for 20 test -S "$XDG_RUNTIME_DIR/wayland-uledsd" ||
	{ cat "$out/weston.log"; exit 1; }
geo=$out/geometry-kiosk.log
bg_start env -u DISPLAY GDK_BACKEND=wayland WAYLAND_DISPLAY=wayland-uledsd \
	"$panel" --kiosk --debug-geometry >"$geo" 2>"$out/panel-kiosk-stderr.log"
kiosk_pid=$BG_PID
assert_true "--kiosk on Wayland draws 6 lamps" wait_for 90 drawn lamps 6 ||
	{ cat "$out/panel-kiosk-stderr.log"; exit 1; }
assert_true "--kiosk on Wayland is online" drawn state online
fullscreen() { drawn w 1024 && drawn h 640; }
assert_true "--kiosk is fullscreen: the window is weston's 1024x640 output" wait_for 10 fullscreen
last_block | sed 's/^/# /'
assert_true "--kiosk lamps are large (w=$(field w $RED) >= 150)" test "$(field w $RED)" -ge 150
kill -TERM "$kiosk_pid"
wait "$kiosk_pid"
assert_eq 0 "$?" "--kiosk ends with status 0 on SIGTERM"
echo "# screenshots in $out"
