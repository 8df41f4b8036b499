# SPDX-License-Identifier: MIT
# Sourced by tests/setup-deps.sh and tests/deb.sh: where this system gets Debian from.

# bookworm_uris: the URIs of the system's own Debian bookworm entry, read at run time (the
# first deb822 stanza in /etc/apt/sources.list.d/*.sources whose Suites has plain "bookworm",
# else a "deb URI bookworm" line of /etc/apt/sources.list). Fails when there is none.
bookworm_uris() {
	local f u
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		u=$(awk 'BEGIN{RS=""; FS="\n"}
			{ u=""; s=0
			  for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u) }
				if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) s = 1
			  }
			  if (s && u != "") { print u; exit } }' "$f")
		[ -n "$u" ] && { echo "$u"; return 0; }
	done
	[ -f /etc/apt/sources.list ] || return 1
	u=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
	[ -n "$u" ] && echo "$u"
}

# ensure_backports PROG: adds bookworm-backports (libgpiod >= 2, the 6.12 kernel) with the same
# URIs as the system's own Debian entry, so whatever mirror the machine uses is kept; nothing
# when an entry for it exists. Messages start with PROG. Fails when there is no bookworm entry.
ensure_backports() {
	local uris
	grep -Rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	if ! uris=$(bookworm_uris); then
		echo "$1: found no Debian bookworm entry in /etc/apt/sources.list{,.d}; add bookworm-backports by hand" >&2
		return 1
	fi
	cat >/etc/apt/sources.list.d/uledsd-backports.sources <<EOT
Types: deb
URIs: $uris
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	echo "$1: added bookworm-backports (same URIs as the bookworm entry)"
}
