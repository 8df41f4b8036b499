#!/bin/bash
# SPDX-License-Identifier: MIT
# The D-Bus API on a real kernel and a real system bus, with the shipped policy: no bus at
# start, busctl tree/introspect, properties, PropertiesChanged only for LEDs with the dbus
# backend, SetBrightness/SetTrigger, errors, the policy for unprivileged callers, coalescing.
. "$(dirname "$0")/lib.sh"

src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_bin) || exit 1
work=$(mktemp -d)
L=/sys/class/leds
B=(busctl --system --no-pager)
FLOOD_RATE=10

cat >"$work/10-dbus.conf" <<'C'
[dbustest:green:sig]
max_brightness = 255
backends = dbus, log
dbus.max_rate = 1000
log.max_rate = 0

[dbustest:red:quiet]
max_brightness = 255
backends = log

[dbustest:flood]
max_brightness = 255
; the 1 ms timer below must toggle through brightness (offloaded, it is one blink record)
blink = software
backends = dbus, log
dbus.max_rate = 10
log.max_rate = 0
C

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
getp() { "${B[@]}" get-property io.uledsd1 "$1" io.uledsd1.LED "$2"; }
# call_err PATH IFACE.METHOD ARGS...: the D-Bus error (name: message) of a call, empty if none.
call_err() {
	local p=$1 m=$2
	shift 2
	dbus-send --system --print-reply --dest=io.uledsd1 "$p" "$m" "$@" 2>&1 >/dev/null | sed -n 's/^Error //p'
}
# Brightness PropertiesChanged in dbus-monitor output: "TIME PATH VALUE" lines.
brightness_signals() {
	awk '/^signal / && /member=PropertiesChanged/ {
		match($0, /time=[0-9.]+/); t = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, /path=[^;]+/); p = substr($0, RSTART + 5, RLENGTH - 5); insig = 1; want = 0; next }
	/^(signal|method|error)/ { insig = 0 }
	insig && /string "Brightness"/ { want = 1; next }
	insig && want && /uint32/ { print t, p, $NF; want = 0 }' "$1"
}

# --- no bus yet: LEDs work, one warning, attach when dbus-daemon appears ------------------
rm -rf /run/dbus
bg_start "$uledsd" --bus system --config-dir "$work" 2>"$work/log"
pid=$BG_PID
assert_true "LEDs appear without a bus" wait_for 10 test -d "$L/dbustest:flood"
echo 5 >"$L/dbustest:green:sig/brightness"
assert_true "the LEDs forward without a bus" \
	wait_for 5 grep -q "dbustest:green:sig: brightness 5/255" "$work/log"
assert_eq 1 "$(grep -c 'No D-Bus system bus' "$work/log")" "one 'no bus' warning"
t0=$(_lib_usec)
start_dbus "$src/conf/io.uledsd1.conf" || exit 1
t1=$(_lib_usec)
assert_true "uledsd takes io.uledsd1 once the bus appears (inotify on /run)" \
	wait_for 10 grep -q "Serving io.uledsd1 on the system bus" "$work/log"
t2=$(_lib_usec)
assert_true "busctl list shows io.uledsd1" sh -c "busctl --system --no-pager list | grep -q '^io.uledsd1 '"
echo "# dbus-daemon answered busctl after $(((t1 - t0) / 1000)) ms; uledsd owned io.uledsd1 $(((t2 - t0) / 1000)) ms after dbus-daemon was started"
assert_eq 1 "$(grep -c 'No D-Bus system bus' "$work/log")" "still one 'no bus' warning"

# --- the object tree and the documented API ------------------------------------------------
sig=/io/uledsd1/led/dbustest_3agreen_3asig
quiet=/io/uledsd1/led/dbustest_3ared_3aquiet
flood=/io/uledsd1/led/dbustest_3aflood
tree=$("${B[@]}" tree io.uledsd1)
for p in /io/uledsd1 "$sig" "$quiet" "$flood"; do
	assert_true "busctl tree shows $p" grep -q -- "$p\$" <<<"$tree"
done
intro=$("${B[@]}" introspect io.uledsd1 /io/uledsd1)
for m in '^io.uledsd1.Manager +interface' '^\.ListLEDs +method +- +a\(so\)' \
	'^\.GetLED +method +s +o' '^\.Reload +method +- +as' '^\.Version +property +s +"[0-9.]+" +const' \
	'^org.freedesktop.DBus.ObjectManager +interface' '^\.InterfacesAdded +signal'; do
	assert_true "Manager introspection has /$m/" grep -Eq "$m" <<<"$intro"
done
intro=$("${B[@]}" introspect io.uledsd1 "$sig")
for m in '^io.uledsd1.LED +interface' '^\.SetBrightness +method +u +- ' '^\.SetTrigger +method +s +- ' \
	'^\.Name +property +s +"dbustest:green:sig" +const' '^\.MaxBrightness +property +u +255 +const' \
	'^\.Brightness +property +u +5 +emits-change' '^\.Trigger +property +s +"none"' \
	'^\.Backends +property +a\(sbs\) .*"dbus" true.*"log" true.* emits-change'; do
	assert_true "LED introspection has /$m/" grep -Eq "$m" <<<"$intro"
done
# Introspection tells the truth: Brightness of an LED without the dbus backend sends nothing.
xml_sig=$("${B[@]}" introspect --xml-interface io.uledsd1 "$sig")
xml_quiet=$("${B[@]}" introspect --xml-interface io.uledsd1 "$quiet")
brightness_xml() { sed -n '/<property name="Brightness"/,/<\/property>\|\/>$/p' <<<"$1"; }
assert_true "dbus-backend LED: Brightness has no EmitsChangedSignal=false" \
	sh -c "! grep -q 'EmitsChangedSignal\" value=\"false' <<'X'
$(brightness_xml "$xml_sig")
X"
assert_true "LED without dbus backend: Brightness says EmitsChangedSignal=false" \
	grep -q 'EmitsChangedSignal" value="false' <<<"$(brightness_xml "$xml_quiet")"
assert_true "busctl shows no emits-change on that Brightness" \
	grep -Eq '^\.Brightness +property +u +[0-9]+ +-$' <<<"$("${B[@]}" introspect io.uledsd1 "$quiet")"
# The introspection XML installed for code generators (api/, /usr/share/dbus-1/interfaces)
# is what uledsd serves: the Manager, and the LED in the form every LED has (no dbus backend).
"${B[@]}" introspect --xml-interface io.uledsd1 /io/uledsd1 >"$work/manager.xml"
printf '%s\n' "$xml_quiet" >"$work/led.xml"
for f in Manager:manager LED:led; do
	diff=$(python3 "$src/tests/kernel/introspection-diff.py" "$src/api/io.uledsd1.${f%%:*}.xml" "$work/${f#*:}.xml" 2>&1)
	assert_eq 0 "$?" "api/io.uledsd1.${f%%:*}.xml matches uledsd's introspection ($(tr '\n' ';' <<<"$diff"))"
done

list=$("${B[@]}" call io.uledsd1 /io/uledsd1 io.uledsd1.Manager ListLEDs)
assert_true "ListLEDs lists 3 LEDs with their paths" grep -q "^a(so) 3 .*\"dbustest:flood\" \"$flood\"" <<<"$list"
assert_eq "o \"$quiet\"" "$("${B[@]}" call io.uledsd1 /io/uledsd1 io.uledsd1.Manager GetLED s dbustest:red:quiet)" \
	"GetLED gives the escaped path"
assert_eq 'a(sbs) 1 "log" true "attached"' "$(getp "$quiet" Backends)" "Backends of the quiet LED"

# --- properties and signals after sysfs writes ---------------------------------------------
dbus-monitor --system "type='signal',path_namespace='/io/uledsd1'" >"$work/mon" 2>&1 &
mon=$!
_lib_bg_pids+=("$mon")
wait_for 5 grep -q NameLost "$work/mon" || sleep 1
echo 42 >"$L/dbustest:green:sig/brightness"
echo 43 >"$L/dbustest:red:quiet/brightness"
assert_true "get-property Brightness after a sysfs write" wait_for 5 sh -c "[ \"\$(busctl --system get-property io.uledsd1 $sig io.uledsd1.LED Brightness)\" = 'u 42' ]"
assert_eq "u 43" "$(getp "$quiet" Brightness)" "get-property Brightness of the quiet LED"
has_signal() { brightness_signals "$work/mon" | grep -q "$1 $2\$"; }
wait_for 5 has_signal "$sig" 42
sleep 0.5
assert_true "PropertiesChanged Brightness=42 for the dbus-backend LED" \
	grep -q "$sig 42\$" <<<"$(brightness_signals "$work/mon")"
assert_eq 0 "$(grep -c "path=$quiet;" "$work/mon")" "no signal at all for the LED without the dbus backend"

# --- methods as root -----------------------------------------------------------------------
"${B[@]}" call io.uledsd1 "$sig" io.uledsd1.LED SetBrightness u 7
assert_eq 7 "$(cat "$L/dbustest:green:sig/brightness")" "SetBrightness as root writes sysfs"
assert_true "SetBrightness reaches the backends (log)" \
	wait_for 5 grep -q "dbustest:green:sig: brightness 7/255" "$work/log"
assert_true "get-property follows SetBrightness" wait_for 5 sh -c "[ \"\$(busctl --system get-property io.uledsd1 $sig io.uledsd1.LED Brightness)\" = 'u 7' ]"
"${B[@]}" call io.uledsd1 "$sig" io.uledsd1.LED SetTrigger s heartbeat
assert_true "SetTrigger selects the trigger in sysfs" grep -q '\[heartbeat\]' "$L/dbustest:green:sig/trigger"
assert_eq 's "heartbeat"' "$(getp "$sig" Trigger)" "Trigger is the kernel's current trigger"
echo none >"$L/dbustest:green:sig/trigger"
assert_eq 's "none"' "$(getp "$sig" Trigger)" "Trigger follows a sysfs write"
# Trigger PropertiesChanged: "PATH VALUE" lines.
trigger_signals() {
	awk '/^signal / && /member=PropertiesChanged/ {
		match($0, /path=[^;]+/); p = substr($0, RSTART + 5, RLENGTH - 5); insig = 1; want = 0; next }
	/^(signal|method|error)/ { insig = 0 }
	insig && /string "Trigger"/ { want = 1; next }
	insig && want && /variant/ { print p, $NF; want = 0 }' "$work/mon"
}
assert_true "SetTrigger: PropertiesChanged Trigger=heartbeat" \
	grep -q "^$sig \"heartbeat\"\$" <<<"$(trigger_signals)"
assert_true "someone's sysfs write: PropertiesChanged Trigger=none within 2 s" \
	wait_for 2 sh -c "$(declare -f trigger_signals); work=$work; trigger_signals | grep -q '^$sig \"none\"\$'"
echo timer >"$L/dbustest:red:quiet/trigger"
sleep 1.5
echo none >"$L/dbustest:red:quiet/trigger"
sleep 1
assert_eq 0 "$(grep -c "path=$quiet;" "$work/mon")" "no Trigger signal for the LED without the dbus backend"

# --- bad calls: readable D-Bus errors, nothing crashes ------------------------------------
e=$(call_err "$sig" io.uledsd1.LED.SetBrightness uint32:256)
assert_true "out-of-range brightness: InvalidArgs naming the range ($e)" \
	grep -q '^org.freedesktop.DBus.Error.InvalidArgs: Brightness 256 is out of range .*0 to 255' <<<"$e"
assert_eq 0 "$(cat "$L/dbustest:green:sig/brightness")" "sysfs unchanged by the refused call"
e=$(call_err "$sig" io.uledsd1.LED.SetBrightness string:bright)
assert_true "wrong signature: InvalidArgs ($e)" grep -q "^org.freedesktop.DBus.Error.InvalidArgs: .*expecting 'u'" <<<"$e"
e=$(call_err "$sig" io.uledsd1.LED.SetTrigger string:nosuchtrig)
# The hint is the daemon's (issue 31): no modprobe advice for a module that does not exist,
# the nearest name for a typo, the device for a device's trigger.
assert_true "unknown trigger: UnknownTrigger says no such module ($e)" \
	grep -q "^io.uledsd1.Error.UnknownTrigger: .*'nosuchtrig'.*no module ledtrig-nosuchtrig exists" <<<"$e"
assert_true "unknown trigger: no modprobe advice ($e)" bash -c "! grep -q modprobe <<<'$e'"
modprobe ledtrig-timer
e=$(call_err "$sig" io.uledsd1.LED.SetTrigger string:timre)
assert_true "a typo: the nearest trigger ($e)" grep -q "did you mean 'timer'?" <<<"$e"
e=$(call_err "$sig" io.uledsd1.LED.SetTrigger string:phy0tx)
assert_true "a device's trigger: where it comes from ($e)" grep -q "wireless driver (mac80211)" <<<"$e"
e=$(call_err "$sig" io.uledsd1.LED.SetTrigger string:"two words")
assert_true "bad trigger name: InvalidArgs ($e)" grep -q '^org.freedesktop.DBus.Error.InvalidArgs' <<<"$e"
e=$(call_err /io/uledsd1 io.uledsd1.Manager.GetLED string:nosuch)
assert_true "unknown LED: UnknownLED ($e)" grep -q "^io.uledsd1.Error.UnknownLED: No LED named 'nosuch'" <<<"$e"
e=$(call_err /io/uledsd1/led/nosuch io.uledsd1.LED.SetBrightness uint32:1)
assert_true "no such object: UnknownObject/UnknownMethod ($e)" grep -Eq '^org.freedesktop.DBus.Error.Unknown(Object|Method)' <<<"$e"
assert_true "uledsd survived the bad calls" kill -0 "$pid"

# --- unprivileged callers with the shipped policy: read and watch, no changes (uledsd says no:
# --- nobody is neither root nor in the group uledsd, and polkit does not admit it) -----------
assert_eq "u 0" "$(nobody "${B[@]}" get-property io.uledsd1 "$sig" io.uledsd1.LED Brightness)" "nobody reads Brightness"
assert_true "nobody lists LEDs" sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call io.uledsd1 /io/uledsd1 io.uledsd1.Manager ListLEDs | grep -q '^a(so) 3'"
assert_true "nobody introspects" sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system introspect io.uledsd1 $sig | grep -q SetBrightness"
assert_true "nobody gets managed objects" sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call io.uledsd1 /io/uledsd1 org.freedesktop.DBus.ObjectManager GetManagedObjects | grep -q dbustest:flood"
e=$(nobody dbus-send --system --print-reply --dest=io.uledsd1 "$sig" io.uledsd1.LED.SetBrightness uint32:9 2>&1 >/dev/null)
assert_true "nobody's SetBrightness is refused (the policy lets everyone call, uledsd refuses) ($e)" \
	grep -q 'AccessDenied.*uledsd allows for root' <<<"$e"
assert_eq 0 "$(cat "$L/dbustest:green:sig/brightness")" "sysfs unchanged after nobody's SetBrightness"
e=$(nobody dbus-send --system --print-reply --dest=io.uledsd1 "$sig" io.uledsd1.LED.SetTrigger string:timer 2>&1 >/dev/null)
assert_true "nobody's SetTrigger is refused" grep -q 'AccessDenied' <<<"$e"
e=$(nobody dbus-send --system --print-reply --dest=io.uledsd1 /io/uledsd1 io.uledsd1.Manager.Reload 2>&1 >/dev/null)
assert_true "nobody's Reload is refused" grep -q 'AccessDenied' <<<"$e"
e=$(nobody dbus-send --system --print-reply --dest=io.uledsd1 "$sig" org.freedesktop.DBus.Properties.Set string:io.uledsd1.LED string:Brightness variant:uint32:3 2>&1 >/dev/null)
assert_true "nobody's Properties.Set is refused: the property is read-only ($e)" grep -q 'PropertyReadOnly' <<<"$e"

# --- a flood is coalesced to <= dbus.max_rate signals/s, the final value delivered ---------
: >"$work/mon.mark"
n0=$(wc -l <"$work/mon")
echo timer >"$L/dbustest:flood/trigger"
echo 1 >"$L/dbustest:flood/delay_on"
echo 1 >"$L/dbustest:flood/delay_off"
sleep 3
echo none >"$L/dbustest:flood/trigger"
for i in $(seq 1 400); do echo $((i % 250 + 1)) >"$L/dbustest:flood/brightness"; done
echo 77 >"$L/dbustest:flood/brightness"
t_end=$(_lib_usec)
sleep 1
tail -n +"$((n0 + 1))" "$work/mon" >"$work/mon.flood"
brightness_signals "$work/mon.flood" | awk -v p="$flood" '$2 == p' >"$work/flood.sig"
n=$(wc -l <"$work/flood.sig")
# Times are when dbus-monitor received them: a busy guest can bunch two signals sent 1/rate
# apart, so a sliding second may show one more than max_rate; a calendar second may not.
stats=$(awk '{ t[NR] = $1 } END {
	for (i = 1; i <= NR; i++) { n = 0; for (j = i; j <= NR && t[j] < t[i] + 1; j++) n++; if (n > win) win = n
		if (i > 1 && (min == "" || t[i] - t[i - 1] < min)) min = t[i] - t[i - 1]
		b = int(t[i]); cnt[b]++; if (cnt[b] > maxb) maxb = cnt[b] }
	printf "%d %.3f %.3f %d %d\n", NR, t[NR] - t[1], min, maxb, win }' "$work/flood.sig")
read -r cnt dur mingap maxbucket maxwin <<<"$stats"
changes=$(grep -c 'dbustest:flood: brightness' "$work/log")
echo "# flood: $changes brightness changes reached uledsd"
echo "# flood: $cnt signals in $dur s; at most $maxbucket in a calendar second, $maxwin in a sliding one; smallest gap $mingap s (max_rate $FLOOD_RATE)"
assert_true "the flood produced signals ($n)" test "$n" -ge 5
assert_true "the flood was coalesced: $changes changes, $cnt signals" test "$changes" -gt $((cnt * 3))
assert_true "at most $FLOOD_RATE signals in any calendar second (saw $maxbucket)" test "$maxbucket" -le $FLOOD_RATE
# Under a memory checker (test-checked.sh) the slower daemon bunches one more.
slack=1
[ -n "${ULEDSD_CHECKED:-}" ] && slack=2
assert_true "at most $FLOOD_RATE+$slack in any sliding second (saw $maxwin)" test "$maxwin" -le $((FLOOD_RATE + slack))
assert_true "average rate <= $FLOOD_RATE/s: $cnt in $dur s" \
	awk -v c="$cnt" -v d="$dur" -v r=$FLOOD_RATE 'BEGIN { exit !(c <= r * d + 1) }'
assert_eq 77 "$(tail -n1 "$work/flood.sig" | cut -d' ' -f3)" "the last signal carries the final value"
assert_eq "u 77" "$(getp "$flood" Brightness)" "Brightness is the final value"
assert_eq 0 "$(grep -c "path=$quiet;" "$work/mon")" "still no signal for the LED without the dbus backend"
assert_true "uledsd survived the flood" kill -0 "$pid"

kill "$pid"
wait "$pid"
assert_eq 0 "$?" "uledsd exits 0 on SIGTERM"
if [ "$_lib_failed" -gt 0 ]; then
	echo "# uledsd log:"
	sed 's/^/#   /' "$work/log" | grep -v 'brightness [0-9]*/255' | tail -n 40
fi
