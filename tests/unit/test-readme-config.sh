#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 14: the README's example configuration and conf/example.conf pass --check-config as
# written, and a mistyped -c directory is an error that names it.
UL=$1 SRC=$2
# In a cross build meson names the exe_wrapper (qemu-aarch64) that runs UL.
eval "wrap=(${MESON_EXE_WRAPPER:-})"
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail=0
check() { # NAME FILE: 0 errors, and each LED listed with its file
	mkdir -p "$t/$1" && cp "$2" "$t/$1/board.conf"
	out=$("${wrap[@]}" "$UL" --check-config -c "$t/$1" 2>&1) || { echo "FAIL $1: --check-config failed:"; echo "$out"; fail=1; }
	grep -Eq ": [0-9]* LEDs valid, 0 errors(, [0-9]+ warnings?)?\.$" <<<"$out" || { echo "FAIL $1: not 0 errors: $out"; fail=1; }
	echo "$out"
}
awk '/^```ini/{f=1;next} /^```/{f=0} f' "$SRC/README.md" > "$t/readme.conf"
[ -s "$t/readme.conf" ] || { echo "FAIL: no \`\`\`ini block in README.md"; exit 1; }
out=$(check readme "$t/readme.conf")
echo "$out"
grep -q '^\S*board.conf:2: \[board:green:power\] backends dbus log$' <<<"$out" || { echo "FAIL readme: board:green:power (the LED the busctl lines use) not listed"; fail=1; }
out=$(check example "$SRC/conf/example.conf")
echo "$out"
grep -q 'backends dbus' <<<"$out" || { echo "FAIL example.conf: needs a dbus LED"; fail=1; }
# Safe to copy as it is (issue 31): no hardware backend drives a line of a real board, and the
# gpio LED shows how, commented out.
grep -Eq 'backends .*(gpio|pwm)' <<<"$out" && { echo "FAIL example.conf: copied as is it drives hardware (a gpio or pwm backend)"; fail=1; }
grep -q '^;backends = gpio$' "$SRC/conf/example.conf" || { echo "FAIL example.conf: no commented gpio example"; fail=1; }
grep -q FAIL <<<"$out" && fail=1
msg=$("${wrap[@]}" "$UL" --check-config -c "$t/no-such-dir" 2>&1); rc=$?
want="uledsd: configuration directory '$t/no-such-dir' (given with -c) does not exist; check the path."
[ $rc = 1 ] && [ "$msg" = "$want" ] || { echo "FAIL: -c missing dir: rc=$rc, got '$msg', want '$want'"; fail=1; }
[ $fail = 0 ] && echo "test-readme-config: ok"
exit $fail
