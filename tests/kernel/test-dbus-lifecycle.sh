#!/bin/bash
# SPDX-License-Identifier: MIT
# The D-Bus side over time: Reload over D-Bus (errors returned, good LEDs kept, objects added
# and removed, vtable switched when the dbus backend comes or goes), the daemon's own root
# check under a permissive policy, and dbus-daemon going away and coming back (twice).
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_bin) || exit 1
work=$(mktemp -d)
L=/sys/class/leds
B=(busctl --system --no-pager)
M=(io.uledsd1 /io/uledsd1 io.uledsd1.Manager)
a=/io/uledsd1/led/life_3aa
b=/io/uledsd1/led/life_3ab
new=/io/uledsd1/led/life_3anew

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
getp() { "${B[@]}" get-property io.uledsd1 "$1" io.uledsd1.LED "$2"; }
serving() { "${B[@]}" list | grep -q '^io.uledsd1 '; }
brightness_is() { [ "$(getp "$1" Brightness 2>/dev/null)" = "u $2" ]; }

cat >"$work/10-good.conf" <<'C'
[life:a]
max_brightness = 10
backends = dbus, log
log.max_rate = 0

[life:b]
max_brightness = 10
C

start_dbus "$src/conf/io.uledsd1.conf" || exit 1
# Start-up: the objects are exported before the name is requested, so a client that sees the
# name finds them all (GetManagedObjects), and no InterfacesAdded is sent for them.
dbus-monitor --system "type='signal',path_namespace='/io/uledsd1'" \
	"type='signal',member='NameOwnerChanged',arg0='io.uledsd1'" >"$work/mon0" 2>&1 &
mon0=$!
_lib_bg_pids+=("$mon0")
wait_for 5 grep -q NameAcquired "$work/mon0" || sleep 1
bg_start "$uledsd" --bus system --config-dir "$work" 2>"$work/log"
pid=$BG_PID
assert_true "uledsd serves io.uledsd1" wait_for 10 serving
objects=$("${B[@]}" call io.uledsd1 /io/uledsd1 org.freedesktop.DBus.ObjectManager GetManagedObjects)
lists_both() { grep -qF "\"$a\"" <<<"$objects" && grep -qF "\"$b\"" <<<"$objects"; }
assert_true "GetManagedObjects, as soon as the name is there, lists life:a and life:b" lists_both
assert_true "life:a is exported" wait_for 5 sh -c "busctl --system tree io.uledsd1 | grep -q '$a\$'"
sleep 0.5
kill "$mon0"
assert_true "the monitor saw io.uledsd1 appear" grep -q "string \"io.uledsd1\"" "$work/mon0"
assert_true "no InterfacesAdded for the LEDs of the start" sh -c "! grep -q member=InterfacesAdded '$work/mon0'"
dbus-monitor --system "type='signal',path_namespace='/io/uledsd1'" >"$work/mon" 2>&1 &
_lib_bg_pids+=("$!")
wait_for 5 grep -q NameLost "$work/mon" || sleep 1

# --- Reload: synchronous, returns the errors, keeps good LEDs -------------------------------
cat >"$work/10-good.conf" <<'C'
[life:a]
max_brightness = 10
backends = log
log.max_rate = 0
C
cat >"$work/20-new.conf" <<'C'
[life:new]
max_brightness = 3
backends = dbus
C
cat >"$work/30-broken.conf" <<'C'
[life:broken]
max_brightness = many
C
out=$("${B[@]}" call "${M[@]}" Reload)
rc=$?
echo "# Reload returned: $out"
assert_eq 0 "$rc" "busctl call Reload exits 0 (usable as ExecReload)"
assert_true "Reload returns the error with FILE:LINE" grep -q "^as 1 \"$work/30-broken.conf:2: " <<<"$out"
assert_true "the new LED exists when Reload returns" test -d "$L/life:new"
assert_true "the removed LED is gone when Reload returns" test ! -e "$L/life:b"
assert_true "the good LED is kept" test -d "$L/life:a"
assert_true "the broken LED is not created" test ! -e "$L/life:broken"
tree=$("${B[@]}" tree io.uledsd1)
assert_true "tree has the new LED" grep -q "$new\$" <<<"$tree"
assert_true "tree has the kept LED" grep -q "$a\$" <<<"$tree"
assert_true "tree lost the removed LED" sh -c "! grep -q '$b\$' <<'X'
$tree
X"
assert_true "InterfacesAdded for the new LED" \
	wait_for 5 grep -Eq "member=InterfacesAdded" "$work/mon"
sleep 0.5
# om_signal MEMBER PATH: dbus-monitor saw ObjectManager.MEMBER for PATH.
om_signal() { grep -A1 "member=$1" "$work/mon" | grep -q "object path \"$2\""; }
assert_true "InterfacesAdded names the new LED's path" om_signal InterfacesAdded "$new"
assert_true "InterfacesRemoved names the removed LED's path" om_signal InterfacesRemoved "$b"
assert_true "no InterfacesRemoved for the kept LED" sh -c "! grep -A1 member=InterfacesRemoved '$work/mon' | grep -q 'object path \"$a\"'"
# life:a lost its dbus backend: Backends changed, and its Brightness no longer signals.
assert_true "PropertiesChanged Backends for the LED whose backends changed" \
	sh -c "grep -A3 'path=$a; interface=org.freedesktop.DBus.Properties; member=PropertiesChanged' '$work/mon' | grep -q 'io.uledsd1.LED'"
assert_eq 'a(sbs) 1 "log" true "attached"' "$(getp "$a" Backends)" "Backends after Reload"
assert_true "introspection of life:a now says EmitsChangedSignal=false" \
	sh -c "busctl --system introspect --xml-interface io.uledsd1 $a | grep -A2 'property name=\"Brightness\"' | grep -q 'EmitsChangedSignal\" value=\"false'"
n0=$(grep -c "path=$a;" "$work/mon")
echo 4 >"$L/life:a/brightness"
assert_true "life:a still forwards (log)" wait_for 5 grep -q "life:a: brightness 4/10" "$work/log"
assert_true "get-property sees 4" wait_for 5 brightness_is "$a" 4
sleep 0.5
assert_eq "$n0" "$(grep -c "path=$a;" "$work/mon")" "no Brightness signal for life:a any more"
echo 2 >"$L/life:new/brightness"
assert_true "the new LED signals (dbus backend)" \
	wait_for 5 sh -c "grep -A6 'path=$new; interface=org.freedesktop.DBus.Properties; member=PropertiesChanged' '$work/mon' | grep -q 'uint32 2'"

# --- the daemon's own check: a policy (the shipped one, or this minimal one) lets nobody -----
# --- through to uledsd, which refuses -------------------------------------------------------
rm -f /etc/dbus-1/system.d/io.uledsd1.conf
cat >"$work/permissive.conf" <<'C'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root"><allow own="io.uledsd1"/></policy>
  <policy context="default"><allow send_destination="io.uledsd1"/></policy>
</busconfig>
C
start_dbus "$work/permissive.conf" # the bus runs: copies the file and reloads the policy
for call in "$a io.uledsd1.LED.SetBrightness uint32:9" "$a io.uledsd1.LED.SetTrigger string:timer" \
	"/io/uledsd1 io.uledsd1.Manager.Reload"; do
	# shellcheck disable=SC2086
	e=$(nobody dbus-send --system --print-reply --dest=io.uledsd1 $call 2>&1 >/dev/null)
	assert_true "permissive policy: uledsd itself refuses ${call#* } for nobody ($e)" \
		grep -q "AccessDenied: .*changes state, which uledsd allows for root, members of the group 'uledsd' and whom polkit admits" <<<"$e"
done
assert_eq 4 "$(cat "$L/life:a/brightness")" "sysfs unchanged by nobody's calls"
assert_true "the trigger unchanged by nobody's calls" grep -q '\[none\]' "$L/life:a/trigger"
"${B[@]}" call io.uledsd1 "$a" io.uledsd1.LED SetBrightness u 6
assert_eq 6 "$(cat "$L/life:a/brightness")" "root's SetBrightness still works"

# --- dbus-daemon goes away and comes back: uledsd stays, re-registers ----------------------
stop_dbus
assert_true "uledsd lives on without the bus" kill -0 "$pid"
assert_true "it says it lost the bus" wait_for 5 grep -q 'Lost the connection to the system bus' "$work/log"
echo 7 >"$L/life:a/brightness"
assert_true "LEDs forward while the bus is gone" wait_for 5 grep -q "life:a: brightness 7/10" "$work/log"
start_dbus "$src/conf/io.uledsd1.conf"
assert_true "io.uledsd1 is back after dbus-daemon restarted" wait_for 10 serving
assert_true "the LED objects are re-exported" sh -c "busctl --system tree io.uledsd1 | grep -q '$new\$'"
assert_eq "u 7" "$(getp "$a" Brightness)" "Brightness after the restart"
assert_eq "a(so) 2" "$("${B[@]}" call "${M[@]}" ListLEDs | cut -d' ' -f1-2)" "ListLEDs after the restart"
# kill -9: the socket file stays behind, the next daemon replaces it.
kill -9 "$(pidof dbus-daemon)"
assert_true "uledsd survives dbus-daemon's SIGKILL" wait_for 5 sh -c "[ \$(grep -c 'Lost the connection' '$work/log') = 2 ]"
start_dbus
assert_true "io.uledsd1 is back after a SIGKILLed dbus-daemon" wait_for 10 serving
assert_eq 2 "$(grep -c 'Serving again io.uledsd1' "$work/log")" "two reconnects logged"
"${B[@]}" call io.uledsd1 "$new" io.uledsd1.LED SetBrightness u 3
assert_eq 3 "$(cat "$L/life:new/brightness")" "SetBrightness after reconnecting"
assert_true "uledsd is still the same process" kill -0 "$pid"

kill "$pid"
wait "$pid"
assert_eq 0 "$?" "uledsd exits 0 on SIGTERM"
if [ "$_lib_failed" -gt 0 ]; then
	echo "# uledsd log:"
	sed 's/^/#   /' "$work/log" | tail -n 40
fi
