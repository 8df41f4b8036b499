#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 31: the introspection XML of api/ (installed in /usr/share/dbus-1/interfaces) is valid
# and serves code generators as README's recipe says: gdbus-codegen makes a client of it that
# compiles, with the calls the recipe names. (test-dbus-api.sh checks the XML against uledsd.)
# usage: test-codegen.sh SOURCE_ROOT
set -eu
src=$(cd "$1" && pwd)
for tool in gdbus-codegen xmllint pkg-config cc; do
	command -v $tool >/dev/null || { echo "not ok - $tool is missing (tests/setup-deps.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xmllint --noout "$src/api/io.uledsd1.Manager.xml" "$src/api/io.uledsd1.LED.xml"
echo "ok 1 - api/io.uledsd1.Manager.xml and io.uledsd1.LED.xml are well-formed"
# README's command, on the source's files.
cmd=$(sed -n '/^gdbus-codegen /,/xml$/p' "$src/README.md" | tr -d '\\\n' | sed 's|/usr/share/dbus-1/interfaces/|'"$src"'/api/|g')
[ -n "$cmd" ] || { echo "not ok 2 - README has no gdbus-codegen command"; exit 1; }
(cd "$tmp" && eval "$cmd")
echo "ok 2 - README's gdbus-codegen command generates $(cd "$tmp" && echo uledsd-bus.*)"
cat >"$tmp/client.c" <<'C'
#include "uledsd-bus.h"
int main(void)
{
	GError *error = NULL;
	UledsdManager *m = uledsd_manager_proxy_new_for_bus_sync(G_BUS_TYPE_SYSTEM, 0, "io.uledsd1",
		"/io/uledsd1", NULL, &error);
	gchar *path = NULL;
	UledsdLED *led;

	if (!m || !uledsd_manager_call_get_led_sync(m, "board:green:power", &path, NULL, &error))
		return 1;
	led = uledsd_led_proxy_new_for_bus_sync(G_BUS_TYPE_SYSTEM, 0, "io.uledsd1", path, NULL, &error);
	return led && uledsd_led_call_set_brightness_sync(led, uledsd_led_get_max_brightness(led),
							  NULL, &error) ? 0 : 1;
}
C
# shellcheck disable=SC2046
cc -Wall -Werror -o "$tmp/client" "$tmp/client.c" "$tmp/uledsd-bus.c" -I"$tmp" \
	$(pkg-config --cflags --libs gio-2.0 gio-unix-2.0)
echo "ok 3 - a client on the generated proxies (GetLED, SetBrightness, MaxBrightness) compiles"
