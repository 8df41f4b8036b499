#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages under systemd as PID 1 (vm-run.sh --systemd), as tests/deb.sh built them
# (steps build, upgrade and dkms: BUILD/deb/release, BUILD/deb/upgrade, BUILD/deb/dkms): apt
# install of uledsd and uleds-dkms (the postinsts install the module with DKMS, load it and
# start the unit with a sample config), reload, upgrade to VERSION+rebuild1 (uledsd re-executes
# in place: same PID, every LED's sysfs inode, trigger and brightness unchanged), remove, purge.
# Prints the time of each step ("# time: STEP N.N s").
#
# Three changes keep the test within CI's budget (times in tests/README.md):
# - The module is built on the host (tests/deb.sh dkms: the uleds-dkms package's source, DKMS,
#   the guest's kernel), not in the guest (6 min under emulation on a loaded host). The
#   tarball goes where Debian's DKMS postinst (common.postinst) looks for prebuilt modules,
#   /usr/share/uleds-dkms/uleds-VERSION.dkms.tar.gz: the package's postinst loads it with
#   `dkms ldtarball` and then runs `dkms install` as it would after its own build.
# - man-db's trigger is off (/var/lib/man-db/auto-update removed, as answering false to
#   man-db/auto-update does): it rebuilt the whole man index after each apt call (2-10 min).
# - DKMS runs `depmod -a` at install and at removal, over every module of the kernel (4000+,
#   85-135 s each under emulation). Here /lib/modules/KVER is a copy that holds only the
#   modules loaded now and the LED drivers and triggers, so depmod -a takes seconds.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
. "$(dirname "$0")/lib.sh"

L=/sys/class/leds
U=uledsd.service
build=${ULEDSD_BUILD_ROOT:?}
export DEBIAN_FRONTEND=noninteractive
[ "$(cat /proc/1/comm)" = systemd ] || { fail "PID 1 is $(cat /proc/1/comm), not systemd: run with vm-run.sh --systemd"; exit 1; }
timeout 90 systemctl is-system-running --wait >/dev/null

pick() { # pick DIR GLOB: the one file matching, else fail the test
	local f
	f=$(ls "$1"/$2 2>/dev/null | head -n1)
	[ -n "$f" ] || { fail "no $1/$2: run tests/deb.sh $build build upgrade dkms first (tests/run-all.sh does)"; exit 1; }
	echo "$f"
}
d=$(pick "$build/deb/release" 'uledsd_*.deb')
k=$(pick "$build/deb/release" 'uleds-dkms_*_all.deb')
up=$(pick "$build/deb/upgrade" 'uledsd_*+rebuild1_*.deb')
version=$(dpkg-deb -f "$d" Version)
kver=$(uname -r)
prebuilt=$(pick "$build/deb/dkms" "uleds-$version.dkms.tar.gz")
tar -tzf "$prebuilt" | grep -q "dkms_main_tree/$kver/.*/uleds.ko" ||
	{ fail "$prebuilt holds no module for $kver: run tests/deb.sh $build dkms again"; exit 1; }

# Time of each step, on the console and in the summary at the end.
times=()
step_done() { # step_done NAME START_USEC
	local us=$(($(_lib_usec) - $2))
	times+=("$1 $((us / 1000000)).$((us % 1000000 / 100000)) s")
	echo "# time: ${times[-1]}"
}
# apt_log LOG APT-GET-ARGS...: apt-get's output in LOG and on the console, each line with the
# guest's uptime (where the time goes); its exit status.
apt_log() {
	local log=$1
	shift
	apt-get -y -q "$@" 2>&1 | while IFS= read -r line; do echo "[$(cut -d' ' -f1 /proc/uptime)] $line"; done |
		tee "$log"
	return "${PIPESTATUS[0]}"
}

# The guest's root is the host's (an overlay): a dpkg database the host was writing to when the
# VM booted makes apt refuse ("dpkg was interrupted").
if [ -n "$(dpkg --audit 2>&1)" ]; then
	dpkg --audit 2>&1 | head -n 20
	fail "dpkg's database is not clean (above): apt was running on the host when the VM booted? run the test again once it is done"
	exit 1
fi

# man-db's trigger (mandb over all of /usr/share/man) ran 2-10 min per apt call here, and is
# not part of these packages: off in the guest, as in most build containers (the flag file
# that answering false to man-db/auto-update removes).
rm -f /var/lib/man-db/auto-update

# The host's root may carry a policy-rc.d that forbids starting services (a container's): the
# guest is a booted system, where the maintainer scripts' deb-systemd-invoke must act.
rm -f /usr/sbin/policy-rc.d

# The harness loaded its own uleds.ko: out of the way, so that the package's module is used.
rmmod uleds || { fail "cannot unload the harness's uleds module"; exit 1; }
sed -i '/^install uleds /d' /etc/modprobe.d/uledsd-vm.conf

# A smaller /lib/modules/KVER for DKMS's depmod -a (see the top): the modules loaded now, the
# LED drivers and triggers, modules.builtin* and modules.order, the build and source links.
t0=$(_lib_usec)
mods=/lib/modules/$kver
slim=/run/uledsd-test-modules
mkdir -p "$slim"
cp -P "$mods"/modules.builtin "$mods"/modules.builtin.modinfo "$mods"/modules.order "$slim"/
for l in build source; do [ -L "$mods/$l" ] && cp -P "$mods/$l" "$slim/"; done
(
	cd "$mods" || exit 1
	find kernel/drivers/leds -name '*.ko*'
	for m in $(cut -d' ' -f1 /proc/modules); do
		f=$(modinfo -n "$m" 2>/dev/null) || continue
		case $f in "$mods"/*) echo "${f#"$mods"/}" ;; esac
	done
) | sort -u | tar -C "$mods" -cf - -T - | tar -C "$slim" -xf - ||
	{ fail "copying the modules to $slim"; exit 1; }
mount --bind "$slim" "$mods" && depmod -a "$kver" ||
	{ fail "the smaller /lib/modules/$kver (bind mount, depmod -a)"; exit 1; }
echo "# /lib/modules/$kver: $(find "$mods" -name '*.ko*' | wc -l) modules for depmod -a"
step_done "smaller module tree and depmod -a" "$t0"

start_dbus || exit 1

mkdir -p /etc/uledsd.d
cat >/etc/uledsd.d/10-sample.conf <<'C'
[pkg:steady]
max_brightness = 255
default_brightness = 50
backends = log, dbus

[pkg:timer]
max_brightness = 1
trigger = timer
trigger.delay_on = 100
trigger.delay_off = 700

[pkg:free]
max_brightness = 1
C
LEDS=(pkg:steady pkg:timer pkg:free)

# --- install ------------------------------------------------------------------------------
# The module built ahead of time (see the top), where the package's postinst looks for it.
mkdir -p /usr/share/uleds-dkms
cp "$prebuilt" "/usr/share/uleds-dkms/uleds-$version.dkms.tar.gz"
t0=$(_lib_usec)
apt_log /tmp/apt-install.log install --no-install-recommends "$d" "$k" ||
	{ fail "apt install $(basename "$d") $(basename "$k")"; exit 1; }
step_done "install (apt install of both packages, dkms install, the unit started)" "$t0"
rm -r /usr/share/uleds-dkms # not the package's: out of the way of its removal
assert_true "the postinst loaded the prebuilt module (dkms ldtarball)" \
	grep -q "Loading tarball for uleds-$version" /tmp/apt-install.log
assert_true "DKMS built nothing in the guest" sh -c "! grep -q 'Building initial module' /tmp/apt-install.log"
assert_true "no failed start of $U during apt install (it waits for the module)" \
	sh -c "! grep -q 'Could not execute systemctl' /tmp/apt-install.log"
start_dbus || exit 1 # dbus-daemon reads the package's policy (io.uledsd1.conf) now
assert_true "the group uledsd exists" getent group uledsd
assert_true "$U is enabled" systemctl is-enabled --quiet $U
assert_true "DKMS installed uleds/$version for $kver" sh -c "dkms status -m uleds -v '$version' -k '$kver' | grep -q ': installed'"
mod=$(modinfo -n uleds 2>/dev/null || true)
case $mod in
*/updates/dkms/uleds.ko*) pass "modprobe finds the DKMS module ($mod)" ;;
*) fail "modprobe uleds would load '$mod', not the DKMS module" ;;
esac
assert_true "the postinst loaded it: /dev/uleds exists" test -c /dev/uleds
assert_eq "$(modinfo -F srcversion uleds 2>/dev/null)" "$(cat /sys/module/uleds/srcversion 2>/dev/null)" \
	"the loaded uleds module is the DKMS one (srcversion)"
assert_true "$U is active with the sample config" wait_for 30 systemctl is-active --quiet $U ||
	{ systemctl status --no-pager $U; journalctl -b --no-pager -u $U | tail -n 30; }
all_there() { local l; for l in "${LEDS[@]}"; do [ -e "$L/$l" ] || return 1; done; }
assert_true "every sample LED exists" wait_for 10 all_there
assert_eq "50" "$(cat $L/pkg:steady/brightness)" "pkg:steady starts at default_brightness 50"
assert_true "pkg:timer runs the timer trigger" grep -q '\[timer\]' $L/pkg:timer/trigger
assert_true "uledsctl lists the LEDs over D-Bus" sh -c "uledsctl list --no-pager | grep -q pkg:steady"

# --- reload -------------------------------------------------------------------------------
inode_steady=$(stat -L -c %i $L/pkg:steady)
cat >>/etc/uledsd.d/10-sample.conf <<'C'

[pkg:new]
max_brightness = 1
C
sed -i 's/^trigger.delay_off = 700/trigger.delay_off = 900/' /etc/uledsd.d/10-sample.conf
t0=$(_lib_usec)
assert_true "systemctl reload uledsd" systemctl reload $U
step_done "reload (systemctl reload: one LED added, a trigger's delay changed)" "$t0"
assert_true "the reload created pkg:new" test -e $L/pkg:new
assert_eq 900 "$(cat $L/pkg:timer/delay_off)" "the reload changed pkg:timer's delay_off in place"
assert_eq "$inode_steady" "$(stat -L -c %i $L/pkg:steady)" "the reload kept pkg:steady (same inode)"
LEDS+=(pkg:new)

# --- upgrade: re-execution in place -------------------------------------------------------
echo 123 >$L/pkg:steady/brightness
echo heartbeat >$L/pkg:free/trigger
trigger_of() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$L/$1/trigger"; }
snapshot() {
	local l
	for l in "${LEDS[@]}"; do
		printf '%s inode=%s trigger=%s\n' "$l" "$(stat -L -c %i "$L/$l")" "$(trigger_of "$l")"
	done
	echo "pkg:steady brightness=$(cat $L/pkg:steady/brightness)"
	echo "pkg:timer delay_on=$(cat $L/pkg:timer/delay_on) delay_off=$(cat $L/pkg:timer/delay_off)"
}
snapshot >/tmp/before
pid=$(systemctl show -P MainPID $U)
(
	while :; do
		for l in "${LEDS[@]}"; do [ -e "$L/$l" ] || echo "$l vanished" >>/tmp/vanished; done
		_lib_sleep 0.02
	done
) &
_lib_bg_pids+=("$!")
t0=$(_lib_usec)
apt_log /tmp/apt-upgrade.log install --no-install-recommends "$up" ||
	fail "apt install $(basename "$up") (the upgrade)"
step_done "upgrade (apt install of uledsd $version+rebuild1, uledsd re-executed)" "$t0"
assert_eq "$version+rebuild1" "$(dpkg-query -W -f '${Version}' uledsd)" "uledsd is upgraded"
assert_true "$U is active after the upgrade" systemctl is-active --quiet $U
assert_eq "$pid" "$(systemctl show -P MainPID $U)" "the upgrade did not restart uledsd (same MainPID)"
assert_eq /usr/sbin/uledsd "$(readlink /proc/"$pid"/exe)" "uledsd runs the new binary (re-executed)"
assert_true "the journal shows the re-execution" sh -c \
	"journalctl -b --no-pager -u $U | grep -q 'Re-executed: adopting'"
# Which process got SIGUSR2 cannot be raced from here (a restart between reading a PID and
# signalling it): the upgraded scripts must leave that to systemd (grep, as installed).
assert_true "the upgraded postinst reads no MainPID" sh -c "! grep -q MainPID /var/lib/dpkg/info/uledsd.postinst"
assert_true "its helper has systemd signal the unit's main process" \
	grep -q 'systemctl kill --kill-whom=main --signal=SIGUSR2' /usr/libexec/uledsd-reload
snapshot >/tmp/after
assert_eq "$(cat /tmp/before)" "$(cat /tmp/after)" \
	"every LED's sysfs inode and trigger, pkg:steady's brightness and pkg:timer's delays are unchanged"
assert_true "no LED vanished during the upgrade" test ! -e /tmp/vanished
assert_true "io.uledsd1 answers again" wait_for 20 sh -c "uledsctl list --no-pager | grep -q pkg:steady"

# --- remove and purge ---------------------------------------------------------------------
assert_true "/var/lib/uledsd exists (StateDirectory=)" test -d /var/lib/uledsd
t0=$(_lib_usec)
apt_log /tmp/apt-remove.log remove uledsd uleds-dkms || fail "apt remove uledsd uleds-dkms"
step_done "remove (apt remove of both packages, dkms remove)" "$t0"
assert_true "$U is stopped after remove" sh -c "! systemctl is-active --quiet $U"
assert_true "its LEDs are gone" sh -c "[ ! -e $L/pkg:steady ] && [ ! -e $L/pkg:new ]"
assert_true "DKMS no longer lists uleds" sh -c "! dkms status | grep -q '^uleds/'"
assert_true "the module source /usr/src/uleds-$version is gone" test ! -e "/usr/src/uleds-$version"
assert_true "the module file is gone" sh -c "! find /lib/modules/$kver/updates -name 'uleds.ko*' | grep -q ."
assert_true "remove keeps /var/lib/uledsd" test -d /var/lib/uledsd
t0=$(_lib_usec)
apt_log /tmp/apt-purge.log purge uledsd uleds-dkms || fail "apt purge uledsd uleds-dkms"
step_done "purge (apt purge of both packages)" "$t0"
assert_true "purge removed /var/lib/uledsd" test ! -e /var/lib/uledsd
assert_true "dpkg knows neither package after purge" sh -c \
	"! dpkg-query -W -f '\${db:Status-Status}\n' uledsd uleds-dkms 2>/dev/null | grep -qv not-installed"

echo "# times of the steps:"
printf '#   %s\n' "${times[@]}"
