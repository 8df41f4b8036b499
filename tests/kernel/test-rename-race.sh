#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 28 on a real kernel, one boot:
#  1. the mainline uleds driver (uleds-mainline.ko, no ioctls), whose LED core renames a name
#     clash to NAME_1 without a word: another uleds user (uleds-racer) registers uledsd's LED
#     name at the same moment. uledsd either has its LED at NAME, its default brightness there,
#     or logs a clean error and keeps no LED; the racer's LEDs never receive uledsd's writes.
#     A name held before uledsd starts is refused; deterministic cases stop uledsd at its
#     registering write() (ptrace) and register around it; rounds of a real race follow.
#  2. uledsd's module again and 200 triggers with long names (ledtrig-many.ko): the trigger
#     attribute is longer than two pages; Trigger, AvailableTriggers, GetManagedObjects and
#     SetTrigger work, and so does a configured trigger from the end of the list.
# usage: test-rename-race.sh ULEDS_RACER [ROUNDS]
. "$(dirname "$0")/lib.sh"

racer=${1:?usage: test-rename-race.sh ULEDS_RACER [ROUNDS]}
rounds=${2:-30}
src=${ULEDSD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
uledsd=$(uledsd_bin) || exit 1
work=$(mktemp -d)
L=/sys/class/leds
B=(busctl --system --no-pager)

# --- the mainline driver in place of the harness's module ----------------------------------
rmmod uleds || { fail "cannot unload the harness's uleds module"; exit 1; }
insmod "$ULEDSD_KMOD_DIR/uleds-mainline.ko" || { fail "insmod uleds-mainline.ko"; exit 1; }
assert_true "/dev/uleds comes from uleds-mainline.ko" wait_for 5 test -c /dev/uleds
assert_true "the mainline driver is loaded" test -d /sys/module/uleds_mainline

# uledsd_run DIR LOG: uledsd on DIR's drop-ins; returns once its last LED, race:stay, exists.
uledsd_run() {
	bg_start "$uledsd" --bus none --config-dir "$1" --state-dir "$work/state" 2>"$2"
	upid=$BG_PID
	wait_for 10 test -e "$L/race:stay" || { echo "# race:stay never appeared; log:"; cat "$2"; }
}
uledsd_stop() {
	kill -TERM "$upid" 2>/dev/null
	wait "$upid" 2>/dev/null
}
# leds_named PREFIX: the class directory's entries PREFIX and PREFIX_N, one line.
leds_named() { (cd $L && for e in "$1" "$1"_*; do [ -e "$e" ] && printf '%s ' "$e"; done); }

mkdir -p "$work/state" "$work/held" "$work/race"
# race:stay is created last: once it exists uledsd is done with the contested name.
cat >"$work/held/10-held.conf" <<'C'
[race:held]
max_brightness = 255
default_brightness = 77

[race:stay]
max_brightness = 255
default_brightness = 5
C
sed 's/race:held/race:x/' "$work/held/10-held.conf" >"$work/race/10-race.conf"

# --- a name held before uledsd starts: refused, the holder's LED untouched ----------------
"$racer" hold race:held >"$work/held.out" &
hpid=$!
assert_true "the holder registered race:held" wait_for 5 test -e "$L/race:held"
uledsd_run "$work/held" "$work/held.log"
assert_true "a name that exists is a clean error naming FILE:LINE" grep -qF \
	"10-held.conf:1: an LED named 'race:held' already exists (another driver or program made it); choose another name." \
	"$work/held.log"
assert_eq "race:held " "$(leds_named race:held)" "no renamed race:held_1 appears"
assert_eq 0 "$(cat $L/race:held/brightness)" "the holder's LED keeps its brightness"
assert_eq 5 "$(cat $L/race:stay/brightness)" "the other LED is created with its default"
uledsd_stop
kill -TERM $hpid
wait $hpid
assert_eq 0 $? "the holder's LED received nothing (racer: $(tail -n1 "$work/held.out"))"

# --- stopped at its write(): ours renamed, the racer's renamed, NAME gone, a gap -----------
# trace_case WHEN RENAMED LEFT: uleds-racer runs uledsd and registers race:x around its write
# (see uleds-racer.c); uledsd must say the LED core renamed one of the two to RENAMED and
# keep no LED, so that the racer's LEDs LEFT are all that remains.
# (The log names the file by its full path: matched as the end of the line.)
renamed_msg() {
	echo "/10-race.conf:1: another driver or program registered an LED named 'race:x' at the same moment (the LED core renamed one of the two to '$1'); uledsd removed its own, whichever name it got. Choose another name."
}
trace_case() {
	local when=$1 renamed=$2 left=$3 out=$work/trace.$1 log=$work/trace.$1.log rpid upid e
	"$racer" trace race:x "$when" "$log" "$uledsd" --bus none --config-dir "$work/race" \
		--state-dir "$work/state" >"$out" &
	rpid=$!
	wait_for 10 test -e "$L/race:stay" || echo "# $when: race:stay never appeared: $(cat "$log")"
	upid=$(sed -n 's/^pid //p' "$out")
	assert_true "$when: the racer stopped uledsd at its write of race:x" grep -q '^intercepted' "$out"
	assert_true "$when: a clean error naming FILE:LINE and '$renamed'" \
		grep -qF "$(renamed_msg "$renamed")" "$log" ||
		echo "# uledsd's log: $(cat "$log")"
	assert_eq "$left" "$(leds_named race:x)" "$when: only the racer's LEDs are left"
	for e in $left; do
		assert_eq 0 "$(cat "$L/$e/brightness")" "$when: the racer's $e keeps brightness 0"
	done
	assert_eq 5 "$(cat $L/race:stay/brightness)" "$when: the other LED is created"
	kill -TERM "$upid"
	wait_for 5 grep -q '^exited' "$out"
	assert_eq "exited 0" "$(grep '^exited' "$out")" "$when: uledsd exits 0 on SIGTERM"
	kill -TERM $rpid
	wait $rpid
	assert_eq 0 $? "$when: the racer's LEDs received nothing ($(tr '\n' ' ' <"$out"))"
}
# Registered first: uledsd's LED becomes race:x_1 while race:x is the racer's (before the fix
# uledsd took race:x for its own and wrote its default brightness there).
trace_case before race:x_1 "race:x "
# Registered right after uledsd's write: the racer's is race:x_1. uledsd's LED is race:x, but
# nothing tells it apart from the first case: refused too.
trace_case after race:x_1 "race:x_1 "
# uledsd's LED becomes race:x_1 and race:x is gone by the time it looks.
trace_case gone race:x_1 ""
# race:x and race:x_1 taken, race:x_1 freed again: uledsd's LED is race:x_2 behind a gap
# (a look at NAME_1.. up to the first missing one would take race:x for uledsd's).
trace_case gap race:x_2 "race:x "

# --- a real race: the racer registers race:x when uledsd opens /dev/uleds ----------------
# The racer spins on inotify until uledsd's first open of /dev/uleds (manager_check_can_run),
# waits DELAY us and registers: under TCG the outcome varies from round to round, a rename
# being the rare one (the window is a few syscalls of uledsd's); whichever it is, it must be
# right.
delays=(0 50 100 150 200 250 300 400 500 700)
n_ours=0 n_refused=0 n_renamed=0 n_eexist=0 bad=0
for ((i = 0; i < rounds; i++)); do
	d=${delays[i % ${#delays[@]}]}
	out=$work/racer.$i log=$work/uledsd.$i
	"$racer" race race:x 1 "$d" >"$out" &
	rpid=$!
	wait_for 5 grep -q '^armed' "$out" || { fail "round $i: the racer did not start"; break; }
	uledsd_run "$work/race" "$log"
	wait_for 5 grep -q '^register' "$out"
	what="round $i (delay $d us)"
	err=$(grep -F "10-race.conf:1:" "$log")
	case $err in
	"") outcome=ours ;;
	*"an LED named 'race:x' already exists (another driver or program made it); choose another name.")
		outcome=refused ;;
	*"$(renamed_msg race:x_1)") outcome=renamed ;;
	*"an LED named 'race:x' already exists; choose another name.")
		outcome=eexist ;; # both registered at once: the LED core refused one (sysfs EEXIST)
	*) outcome="unexpected error: $err" ;;
	esac
	leds_during=$(leds_named race:x)
	b_x=$(cat $L/race:x/brightness 2>/dev/null)
	kill -TERM $rpid
	wait $rpid
	rrc=$?
	leds_after=$(leds_named race:x)
	b_after=$(cat $L/race:x/brightness 2>/dev/null)
	racer_said=$(grep -v '^armed' "$out" | tr '\n' ' ')
	uledsd_stop
	why=
	[ $rrc = 0 ] || why+=" the racer's LED received uledsd's writes;"
	case $outcome in
	ours)
		# uledsd's LED is race:x: it has the default, and stays once the racer is gone.
		[ "$b_x" = 77 ] || why+=" race:x has brightness '$b_x', not uledsd's 77;"
		[ "$leds_after" = "race:x " ] && [ "$b_after" = 77 ] ||
			why+=" after the racer left: '$leds_after' with brightness '$b_after', not race:x at 77;"
		n_ours=$((n_ours + 1)) ;;
	refused | renamed | eexist)
		# uledsd holds no LED of that name: once the racer is gone none is left.
		[ -z "$leds_after" ] || why+=" after the racer left '$leds_after' remains: uledsd kept an LED;"
		eval "n_$outcome=\$((n_$outcome + 1))" ;;
	*) why+=" $outcome;" ;;
	esac
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		fail "$what:$why LEDs while racing: '$leds_during'; racer: $racer_said; uledsd: $(tr '\n' ' ' <"$log")"
	else
		echo "# $what: $outcome; LEDs while racing: $leds_during; racer: $racer_said"
	fi
done
echo "# $rounds rounds: uledsd's LED at race:x $n_ours, refused before the write $n_refused," \
	"renamed and removed $n_renamed, EEXIST from the LED core $n_eexist"
assert_eq 0 "$bad" "rounds of $rounds in which uledsd kept a wrong LED or wrote to the racer's"

# --- a trigger list longer than a page, with uledsd's module ------------------------------
assert_true "uleds-mainline unloads" rmmod uleds_mainline
insmod "$ULEDSD_KMOD_DIR/uleds.ko" || { fail "insmod uleds.ko"; exit 1; }
wait_for 5 test -c /dev/uleds
insmod "$ULEDSD_KMOD_DIR/ledtrig-many.ko" || { fail "insmod ledtrig-many.ko"; exit 1; }
long="uledsd-test-trigger-with-a-long-name"
mkdir -p "$work/many"
cat >"$work/many/10-many.conf" <<C
[many:last]
max_brightness = 255
trigger = $long-199

[many:none]
max_brightness = 255

[many:timer]
max_brightness = 1
trigger = timer
C
start_dbus "$src/conf/io.uledsd1.conf" || exit 1
bg_start "$uledsd" --bus system --config-dir "$work/many" --state-dir "$work/state" 2>"$work/many.log"
mpid=$BG_PID
assert_true "uledsd serves io.uledsd1" wait_for 15 grep -q "Serving io.uledsd1" "$work/many.log"
size=$(wc -c <"$L/many:none/trigger")
assert_true "the trigger attribute is longer than two pages ($size bytes)" test "$size" -gt 8192
assert_true "the configured trigger from the end of the list is selected" \
	grep -q "\[$long-199\]" "$L/many:last/trigger"
assert_eq "" "$(grep -v -e '^Serving io.uledsd1' -e '^Ready: 3 LEDs, 0 errors.$' "$work/many.log")" \
	"uledsd logs nothing but Serving and Ready"
last=/io/uledsd1/led/many_3alast
none=/io/uledsd1/led/many_3anone
timer=/io/uledsd1/led/many_3atimer
getp() { "${B[@]}" get-property io.uledsd1 "$1" io.uledsd1.LED "$2"; }
assert_eq "s \"$long-199\"" "$(getp $last Trigger)" "Trigger past the first page"
assert_eq 's "timer"' "$(getp $timer Trigger)" "Trigger near the start"
# AvailableTriggers is the kernel's list, every word, none cut at a page boundary.
tr ' ' '\n' <"$L/many:none/trigger" | tr -d '[]' | grep . >"$work/kernel.list"
"${B[@]}" --json=short get-property io.uledsd1 $none io.uledsd1.LED AvailableTriggers |
	jq -r '.data[]' >"$work/bus.list"
assert_eq "$(wc -l <"$work/kernel.list")" "$(wc -l <"$work/bus.list")" "AvailableTriggers has every trigger"
assert_true "AvailableTriggers is the kernel's list" cmp -s "$work/kernel.list" "$work/bus.list"
assert_eq 200 "$(grep -c "^$long-[0-9][0-9][0-9]\$" "$work/bus.list")" "all 200 long names, whole"
if "${B[@]}" --json=short call io.uledsd1 /io/uledsd1 org.freedesktop.DBus.ObjectManager \
	GetManagedObjects >"$work/objects.json" 2>"$work/objects.err"; then
	pass "GetManagedObjects succeeds"
else
	fail "GetManagedObjects failed: $(cat "$work/objects.err")"
fi
assert_eq "many:last $long-199 many:none none many:timer timer" \
	"$(jq -r '.data[0] | to_entries[] | .value["io.uledsd1.LED"] | "\(.Name.data) \(.Trigger.data)"' \
		"$work/objects.json" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')" \
	"GetManagedObjects lists every LED with its trigger"
"${B[@]}" call io.uledsd1 $none io.uledsd1.LED SetTrigger s "$long-150"
assert_true "SetTrigger selects a long-named trigger" grep -q "\[$long-150\]" "$L/many:none/trigger"
assert_eq "s \"$long-150\"" "$(getp $none Trigger)" "Trigger follows SetTrigger"
# Two LEDs with a trigger past the first page now: the whole tree still comes (before the fix,
# one LED whose Trigger failed made GetManagedObjects fail).
assert_true "GetManagedObjects lists many:none with its long-named trigger" sh -c \
	"${B[*]} --json=short call io.uledsd1 /io/uledsd1 org.freedesktop.DBus.ObjectManager GetManagedObjects |
	jq -e '.data[0][\"$none\"][\"io.uledsd1.LED\"].Trigger.data == \"$long-150\"' >/dev/null"
kill -TERM "$mpid"
wait "$mpid"
assert_eq 0 $? "uledsd exits 0"
assert_true "ledtrig-many unloads" rmmod ledtrig_many
