#!/bin/bash
# SPDX-License-Identifier: MIT
# Harness self-test (guest): a failing check must fail the meson test (should_fail: true).
# check-exit-code.sh also checks the exit code comes through exactly (1, not 99).
. "$(dirname "$0")/lib.sh"
pass "this check passes"
fail "this check fails on purpose"
