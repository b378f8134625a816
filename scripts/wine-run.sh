#!/usr/bin/env bash
# Runs a Windows executable under Wine in the project's private prefix, quietly. Used as
# cargo's runner for the Windows target (scripts/wine-test.sh --cargo-test):
#   CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=scripts/wine-run.sh \
#       cargo test --target x86_64-pc-windows-gnu
set -euo pipefail
# shellcheck source=scripts/windows-common.sh
source "$(dirname "$0")/windows-common.sh"
exec wine "$@"
