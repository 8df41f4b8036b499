#!/bin/sh
# SPDX-License-Identifier: MIT
# The arm64 package test (issue 32), PID 1 in an arm64 Debian 12 root on Debian's arm64 kernel
# under qemu-system-aarch64 (tests/cross-arm64.sh BUILD deb copies it to /uledsd-arm64-deb.sh
# of a debootstrap --foreign root, with the packages in /debs). It finishes the bootstrap
# (second stage), brings up qemu's user network (busybox: minbase has no iproute2), installs
# uledsd_arm64 and uleds-dkms with apt as a board's owner would (with the headers of the
# running kernel, from bookworm-backports), and checks what they promise on a board: the
# group, the enabled unit, --check-config of the packaged example, DKMS building uleds
# against the arm64 headers for the running kernel, that module loading and uledsd (the
# packaged one) creating an LED with it. TAP on the console, then @@ARM64-EXIT rc=FAILED@@
# and power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
# shellcheck source=tests/arm64/tap.sh
. /uledsd-test/tap.sh # copied next to busybox by tests/cross-arm64.sh
# debootstrap's second stage unmounts /proc when it is done.
proc_up() { [ -e /proc/uptime ] || mount -t proc proc /proc; }
secs() { proc_up; read -r now _ </proc/uptime; echo "${now%.*}"; }
finish() {
	echo "# $((n - failed)) passed, $failed failed"
	echo "@@ARM64-EXIT rc=$failed@@"
	sync
	proc_up
	echo o >/proc/sysrq-trigger
	sleep 10
	exit "$failed"
}
# log_tail FILE: its end on the console, as comments.
log_tail() { tail -n 25 "$1" | sed 's/^/# /'; }
kver=$(uname -r)
echo "# $(uname -srm)"

t0=$(secs)
if /debootstrap/debootstrap --second-stage >/var/log/uledsd-second-stage.log 2>&1; then
	ok "debootstrap's second stage configures the arm64 root ($(($(secs) - t0)) s)"
else
	not_ok "debootstrap's second stage"
	log_tail /var/log/uledsd-second-stage.log
	finish
fi
proc_up
# No service starts while packages are configured (no systemd runs here).
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
chmod 755 /usr/sbin/policy-rc.d

# The VM boots its own initramfs: making one for the installed kernel took over 10 minutes
# under emulation (the first run's timeout), so initramfs-tools makes none here.
# That file is initramfs-tools' conffile: dpkg keeps this version (--force-confold below)
# instead of asking on the console (the second run waited there until its timeout).
mkdir -p /etc/initramfs-tools
echo 'update_initramfs=no' >/etc/initramfs-tools/update-initramfs.conf
# Emulated disks are slow: dpkg skips its fsyncs (the image is thrown away) and man-db
# does not rebuild its index after every package.
echo force-unsafe-io >/etc/dpkg/dpkg.cfg.d/uledsd-test-unsafe-io
echo 'man-db man-db/auto-update boolean false' | debconf-set-selections

# qemu's user network: 10.0.2.15, gateway 10.0.2.2, its DNS at 10.0.2.3.
bb=/uledsd-test/busybox
$bb ip link set lo up
$bb ip link set eth0 up && $bb ip addr add 10.0.2.15/24 dev eth0 && $bb ip route add default via 10.0.2.2
echo 'nameserver 10.0.2.3' >/etc/resolv.conf
t0=$(secs)
if apt-get update -q >/var/log/uledsd-apt.log 2>&1 && ! grep -q -E '^(Err:|W: Failed to fetch)' /var/log/uledsd-apt.log; then
	ok "apt-get update on the board ($(($(secs) - t0)) s)"
else
	not_ok "apt-get update on the board"
	log_tail /var/log/uledsd-apt.log
	finish
fi
# As README's board install says: the packages and the headers of the running kernel (the
# metapackage would pick the newest 6.12, not the one this VM boots).
t0=$(secs)
# linux-headers-$kver depends on its linux-image, whose postinst has initramfs-tools make an
# initramfs (update-initramfs -c ignores update_initramfs=no): over 15 minutes under
# emulation, for a kernel this VM boots from its own. INITRD=No is the hook's way to skip it.
# DKMS needs /proc and /dev/fd (bash process substitution); the first full install failed
# without them ("/dev/fd/63: No such file or directory").
proc_up
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# uledsd reads its LEDs' triggers in /sys (the fifth run had no sysfs here: the LED was made,
# but the test could not see it and uledsd found no heartbeat trigger).
[ -d /sys/class ] || mount -t sysfs sysfs /sys
if INITRD=No apt-get install -y -q --no-install-recommends \
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold /debs/uledsd_*_arm64.deb /debs/uleds-dkms_*_all.deb \
	"linux-headers-$kver" >>/var/log/uledsd-apt.log 2>&1 </dev/null; then
	ok "apt installs $(cd /debs && echo *.deb) and linux-headers-$kver ($(($(secs) - t0)) s, the DKMS build included)"
else
	not_ok "apt install of the packages"
	log_tail /var/log/uledsd-apt.log
	finish
fi
version=$(dpkg-query -W -f '${Version}' uledsd)
check "uledsd $version is installed for arm64" [ "$(dpkg-query -W -f '${Architecture}' uledsd)" = arm64 ]
check "the group uledsd exists (sysusers)" getent group uledsd
check "uledsd --version runs" sh -c "uledsd --version | grep -qx 'uledsd $version'"
check "uledsctl runs" sh -c 'uledsctl --help >/dev/null'
check "uledsd.service is enabled" systemctl is-enabled --quiet uledsd.service
check "the packaged example.conf passes uledsd --check-config" \
	sh -c 'uledsd --check-config -c /usr/share/doc/uledsd >/var/log/uledsd-check.log 2>&1'
check "DKMS built and installed uleds/$version for $kver (aarch64)" \
	sh -c "dkms status uleds | grep -q '^uleds/$version, $kver, aarch64: installed'"
[ $failed = 0 ] || dkms status 2>&1 | sed 's/^/# /'
check "the DKMS module's vermagic is the running kernel's" \
	sh -c "modinfo -F vermagic uleds | grep -q '^$kver SMP'"
check "modprobe uleds loads the DKMS module" sh -c 'modprobe uleds && [ -c /dev/uleds ]'

# The packaged uledsd with the module: one LED, no bus, no GPIO.
mkdir -p /tmp/conf
printf '[board:green:status]\nbackends = log\ntrigger = heartbeat\n' >/tmp/conf/10-board.conf
modprobe ledtrig-heartbeat 2>/dev/null
uledsd --bus none -c /tmp/conf --state-dir /tmp/state >/var/log/uledsd-run.log 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -e /sys/class/leds/board:green:status ]; do sleep 0.1; i=$((i + 1)); done
check "the packaged uledsd creates its LED through the DKMS module" [ -e /sys/class/leds/board:green:status ]
check "with its heartbeat trigger" grep -q '\[heartbeat\]' /sys/class/leds/board:green:status/trigger
kill -TERM $pid
wait $pid
check "uledsd exits 0 on SIGTERM" [ $? = 0 ]
[ $failed = 0 ] || log_tail /var/log/uledsd-run.log
finish
