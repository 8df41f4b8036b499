#!/bin/bash
# SPDX-License-Identifier: MIT
# vm-run.sh on bookworm's own 6.1 kernel instead of the newest 6.12 (same arguments).
set -euo pipefail
for b in $(ls -d /lib/modules/6.1.*/build 2>/dev/null | sort -V); do
	v=$(basename "$(dirname "$b")")
	[ -e "/boot/vmlinuz-$v" ] && ULEDSD_KVER=$v
done
if [ -z "${ULEDSD_KVER:-}" ]; then
	echo "vm-run-6.1: no 6.1 kernel with image and headers (run tests/setup-deps.sh)" >&2
	exit 99
fi
export ULEDSD_KVER
exec "$(dirname "${BASH_SOURCE[0]}")/vm-run.sh" "$@"
