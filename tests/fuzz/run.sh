#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every libFuzzer target for SECONDS each, one after the other, from the seed corpus in
# tests/fuzz/corpus/TARGET (copied: new inputs go to BUILD_DIR/fuzz-corpus, not the repo).
# Prints each target's run count; exits 1 when a target crashed, leaked or hung (the input
# is left in BUILD_DIR/fuzz-artifacts/: make it a unit test).
#
# usage: tests/fuzz/run.sh SECONDS [BUILD_DIR]     (BUILD_DIR default: build-fuzz, set up with
#        clang when missing)  env: FUZZ_TARGETS="fuzz-conf ..." to run only some
set -euo pipefail

secs=${1:?usage: tests/fuzz/run.sh SECONDS [BUILD_DIR]}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$src/build-fuzz}

# libFuzzer's runtime is libclang-rt-14-dev, only a Recommends of clang-14: both, explicitly.
if ! command -v clang >/dev/null || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
	apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends clang \
		libclang-rt-14-dev
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$src" -Dfuzz=true -Dpanel=disabled -Dman-pages=disabled \
		-Db_sanitize=address,undefined -Db_lundef=false
fi
targets=${FUZZ_TARGETS:-$(cd "$src/tests/fuzz" && ls fuzz-*.c | sed 's/\.c$//')}
# shellcheck disable=SC2086 # a list of target names
ninja -C "$build" $(printf 'tests/fuzz/%s ' $targets) >/dev/null

# -timeout=60: a starved process on a loaded machine is no hang (10 s gave false alarms).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rc=0
for t in $targets; do
	corpus=$build/fuzz-corpus/$t
	mkdir -p "$corpus" "$build/fuzz-artifacts"
	cp -n "$src/tests/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null || :
	log=$build/fuzz-artifacts/$t.log
	if "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" "$corpus" \
		>"$log" 2>&1; then
		res=ok
	else
		res=FAILED rc=1
		tail -40 "$log"
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || :)
	echo "$t: $res, ${runs:-?} runs in ${secs} s, ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l) (log: $log)"
done
exit $rc
