#!/bin/bash
# SPDX-License-Identifier: MIT
# uledsd-generator on a made-up sysfs: which directories the unit's drop-in opens, nothing for a
# chip that is not there (fail closed, and said why), and no drop-in at all when no LED has a
# backend that writes sysfs. (Under systemd, with a real PWM chip: the kernel test
# systemd-pwm-generator.)
# Then the scripts around the unit, with a fake systemctl: uledsd-reload --reexec (the
# package's upgrade path) signals the unit's main process through systemd, never a PID it was
# given, and debian/uledsd.postinst calls it only while the unit is active. (The real upgrade:
# the kernel test deb-install-upgrade-purge.)
gen=${1:?usage: test-generator.sh ULEDSD_GENERATOR ULEDSD_RELOAD}
# In a cross build meson names the exe_wrapper (qemu-aarch64) that runs it.
eval "wrap=(${MESON_EXE_WRAPPER:-})"
t=$(mktemp -d)
trap '[ -n "${victim:-}" ] && kill "$victim" 2>/dev/null; rm -rf "$t"' EXIT
n=0 failed=0
check() { # DESCRIPTION COMMAND...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=1; fi
}
S=$t/sys
mkdir -p "$S/devices/platform/chipa.0/pwm/pwmchip0" "$S/devices/platform/chipb.1" \
	"$S/class/pwm" "$S/bus/platform/devices" "$S/bus/i2c/devices" "$t/conf"
ln -s ../../../devices/platform/chipa.0 "$S/bus/platform/devices/chipa.0"
ln -s ../../../devices/platform/chipb.1 "$S/bus/platform/devices/chipb.1" # no driver: no pwmchip
ln -s ../../devices/platform/chipa.0/pwm/pwmchip0 "$S/class/pwm/pwmchip0"
ln -s ../../../chipa.0 "$S/devices/platform/chipa.0/pwm/pwmchip0/device"
run() { # writes $t/out/uledsd.service.d/50-uledsd-sysfs.conf, if anything
	rm -rf "$t/out" && mkdir "$t/out"
	ULEDSD_SYSFS=$S ULEDSD_CONFIG_DIR=$t/conf "${wrap[@]}" "$gen" "$t/out" "$t/early" "$t/late"
}
dropin=$t/out/uledsd.service.d/50-uledsd-sysfs.conf
has() { grep -qx -- "$1" "$dropin"; }
lacks() { ! grep -q -- "$1" "$dropin"; }

cat >"$t/conf/10.conf" <<'C'
[b:log]
backends = log
[b:gpio-like]
backends = log
C
check "no pwm LED: exit 0" run
check "no pwm LED: no drop-in, the sandbox stays as shipped" test ! -e "$t/out/uledsd.service.d"

cat >"$t/conf/20.conf" <<'C'
[b:by-number]
backends = pwm
pwm.chip = pwmchip0
pwm.channel = 0
[b:by-name]
backends = pwm, log
pwm.chip = chipa.0
pwm.channel = 1
[b:unbound]
backends = pwm
pwm.chip = chipb.1
pwm.channel = 0
C
check "pwm LEDs: exit 0" run
check "pwmchipN: its device's directory is opened, once for two LEDs" \
	test "$(grep -c "^ReadWritePaths=-$S/devices/platform/chipa.0$" "$dropin")" = 1
check "a device without its driver yet is found on its bus" has "ReadWritePaths=-$S/devices/platform/chipb.1"
check "uevents: AF_NETLINK" has "RestrictAddressFamilies=AF_UNIX AF_NETLINK"
check "uevents: the host's network namespace" has "PrivateNetwork=no"
check "each LED is named with its file and line" grep -q "\[b:unbound\] pwm backend ($t/conf/20.conf:10)" "$dropin"
check "not all of /sys/devices" lacks "ReadWritePaths=-$S/devices$"

cat >"$t/conf/30.conf" <<'C'
[b:later]
backends = pwm
pwm.chip = usb-pwm.7
pwm.channel = 0
[b:broken]
backends = pwm
pwm.chip = chipa.0
pwm.channel = lots
C
check "a chip that is nowhere yet: exit 0" run 2>"$t/stderr"
check "a chip that is nowhere yet: all of /sys/devices is not opened (fail closed)" \
	lacks "ReadWritePaths=-$S/devices$"
check "nor anything else for it: the found chips' directories only" \
	test "$(grep ^ReadWritePaths= "$dropin")" = "$(printf '%s\n' "ReadWritePaths=-$S/devices/platform/chipa.0" \
		"ReadWritePaths=-$S/devices/platform/chipb.1")"
check "the drop-in names it, with its file and line" \
	grep -qx "#   \[b:later\] pwm backend ($t/conf/30.conf:2): PWM usb-pwm.7 channel 0" "$dropin"
check "the drop-in says what opens it" grep -q "systemctl daemon-reload && systemctl" "$dropin"
check "the log names it and says what to do ($(head -c 300 "$t/stderr"))" grep -q \
	"b:later.*PWM usb-pwm.7 channel 0 is not in $S now: nothing is opened for it.*Name the chip by its device.*systemctl daemon-reload && systemctl restart uledsd" \
	"$t/stderr"
check "an LED with errors is not counted" lacks "b:broken"

rm "$t/conf/20.conf"
check "only chips that are nowhere: exit 0" run 2>"$t/stderr"
check "only chips that are nowhere: the drop-in only says why" grep -q "b:later" "$dropin"
check "only chips that are nowhere: no ReadWritePaths=" lacks "ReadWritePaths="
check "only chips that are nowhere: no uevents, the network namespace stays private" \
	sh -c "! grep -q -e PrivateNetwork= -e RestrictAddressFamilies= '$dropin'"

# --- uledsd-reload --reexec and the postinst, with a fake systemctl ------------------------
reload=${2:?usage: test-generator.sh ULEDSD_GENERATOR ULEDSD_RELOAD} # units/meson.build
src=$(cd "$(dirname "$0")/../.." && pwd)
F=$t/fake
mkdir -p "$t/bin" "$F"
# The unit's state in $F: active (is-active), status (StatusText), inv (InvocationID), and
# what "systemctl kill" does: on-kill (reexec: the reload count goes up, uledsd re-executed;
# restart: a new invocation without it). Every call is appended to $F/calls.
cat >"$t/bin/systemctl" <<'SH'
#!/bin/sh
echo "systemctl $*" >>"$FAKE/calls"
case "$*" in
"is-active --quiet uledsd.service") [ "$(cat "$FAKE/active")" = active ] ;;
"show --property=StatusText --value uledsd.service") cat "$FAKE/status" ;;
"show --property=InvocationID --value uledsd.service") cat "$FAKE/inv" ;;
kill*)
	[ "$(cat "$FAKE/active")" = active ] || exit 1
	case $(cat "$FAKE/on-kill") in
	reexec) (sleep 0.2; echo "3 LEDs, 0 errors (reload 3)" >"$FAKE/status") & ;;
	restart) (sleep 0.2; echo 2222 >"$FAKE/inv"; echo "3 LEDs, 0 errors" >"$FAKE/status") & ;;
	esac ;;
*) exit 1 ;;
esac
SH
for c in busctl deb-systemd-invoke; do
	printf '#!/bin/sh\necho "%s $*" >>"$FAKE/calls"\nexit 1\n' "$c" >"$t/bin/$c"
done
chmod +x "$t/bin"/*
unit_is() { # unit_is ACTIVE ON_KILL
	echo "$1" >"$F/active"
	echo "$2" >"$F/on-kill"
	echo 1111 >"$F/inv"
	echo "3 LEDs, 0 errors (reload 2)" >"$F/status"
	: >"$F/calls"
}
fake() { FAKE=$F PATH=$t/bin:$PATH timeout 10 "$@"; }
called() { grep -qx -- "$1" "$F/calls"; }
# A process that does not handle SIGUSR2 (its default action kills), standing for whoever got
# the PID after uledsd: nothing may signal it.
sleep 600 &
victim=$!

unit_is active reexec
check "reexec: exit 0 once the reload count in STATUS= went up" fake sh "$reload" uledsd.service --reexec
check "reexec: systemd signals the unit's main process (systemctl kill --kill-whom=main)" \
	called "systemctl kill --kill-whom=main --signal=SIGUSR2 uledsd.service"
check "reexec: no D-Bus Reload instead" sh -c "! grep -q busctl '$F/calls'"
unit_is active reexec
check "reexec, the older spelling UNIT PID --reexec: exit 0" fake sh "$reload" uledsd.service "$victim" --reexec
check "the PID given is not signalled (the process that has it now lives)" kill -0 "$victim"
check "it went through systemctl kill" called "systemctl kill --kill-whom=main --signal=SIGUSR2 uledsd.service"
unit_is active restart
check "uledsd restarted during the re-execution: exit 1" sh -c "! FAKE=$F PATH=$t/bin:\$PATH timeout 10 sh '$reload' uledsd.service --reexec 2>'$t/stderr'"
check "and it says so ($(cat "$t/stderr"))" grep -q "exited during the re-execution" "$t/stderr"
unit_is inactive reexec
check "unit not active: exit 1" sh -c "! FAKE=$F PATH=$t/bin:\$PATH timeout 10 sh '$reload' uledsd.service --reexec 2>/dev/null"
check "unit not active: nothing signalled" sh -c "! grep -q 'systemctl kill' '$F/calls'"

# The postinst with the built helper (not executable in the build dir) and "booted with
# systemd" true: what it calls.
post=$t/postinst
sed -e "s|/usr/libexec/uledsd-reload|sh $reload|" -e 's|\[ -d /run/systemd/system \]|true|' \
	"$src/debian/uledsd.postinst" >"$post"
check "postinst: the helper's path and the systemd check are where this test expects them" \
	sh -c "grep -qF 'sh $reload uledsd.service --reexec' '$post' && ! grep -q /run/systemd/system '$post'"
check "postinst reads no PID (grep: no MainPID, no kill of its own)" \
	sh -c "! grep -q -e MainPID -e 'kill -' '$src/debian/uledsd.postinst'"
unit_is active reexec
check "postinst configure (upgrade), unit active: exit 0" fake sh "$post" configure 0.9
check "postinst, unit active: re-executed through systemctl kill --kill-whom=main" \
	called "systemctl kill --kill-whom=main --signal=SIGUSR2 uledsd.service"
check "postinst, re-executed: no restart" sh -c "! grep -q deb-systemd-invoke '$F/calls'"
unit_is inactive reexec
check "postinst configure (upgrade), unit inactive: exit 0" fake sh "$post" configure 0.9
check "postinst, unit inactive: nothing signalled, nothing restarted" \
	sh -c "! grep -q -e 'systemctl kill' -e deb-systemd-invoke '$F/calls'"
unit_is active restart
check "postinst, uledsd restarted during the re-execution: exit 0" fake sh "$post" configure 0.9 2>/dev/null
check "postinst, re-execution failed: it restarts the unit" called "deb-systemd-invoke restart uledsd.service"
echo "1..$n"
exit $failed
