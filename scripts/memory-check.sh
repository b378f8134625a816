#!/usr/bin/env bash
# Memory check at Gomocup's limit: two instances of the brain play each other (freestyle
# 20x20, short random openings, colours swapped each game) with
#   INFO max_memory 367001600   (350 MiB, Gomocup's limit)
# until --moves moves were played; after every move the mover's memory is read from /proc
# (RSS, USS = private pages, PSS, VmHWM, VmData of its process tree). Fails (exit 1) when the
# peak reaches 350 MiB - 32 MiB = 318 MiB: Gomocup's judge sums the process tree's memory
# after every move, and a brain over the limit loses the game.
#   1. the Linux release build (metric: RSS of the process tree, an upper bound of USS);
#   2. the Windows package under Wine, when the toolchain and Wine are installed (metric:
#      USS of the brain process: RSS there also counts Wine's shared libraries, which
#      Windows would not charge to the brain). Skipped with a message otherwise.
#
# It also fails when a move takes longer than timeout_turn, or a game longer than the match
# clock given with --match-ms, and prints the slowest move.
#
# Usage: scripts/memory-check.sh [--moves N] [--turn-ms MS] [--match-ms MS] [--wine-moves N]
#                                [--no-wine]
#   --moves N       moves to play with the Linux build (default 300; ~2 min at 500 ms)
#   --turn-ms MS    INFO timeout_turn for both brains (default 500)
#   --match-ms MS   INFO timeout_match for both, time_left before each move (default 0: none)
#   --wine-moves N  moves to play under Wine (default 120)
#   --no-wine       Linux build only
# Env: WUZI_TIME_TOLERANCE_MS=N  slack before a move counts as late (default 0; managers
#      allow ~1000 ms, but the brain must not rely on it)
set -euo pipefail
# shellcheck source=scripts/windows-common.sh
source "$(dirname "$0")/windows-common.sh"

moves=300 turn_ms=500 match_ms=0 wine_moves=120 use_wine=1
while (( $# )); do
    case "$1" in
        --moves) moves="$2"; shift ;;
        --turn-ms) turn_ms="$2"; shift ;;
        --match-ms) match_ms="$2"; shift ;;
        --wine-moves) wine_moves="$2"; shift ;;
        --no-wine) use_wine=0 ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        *) die "unknown option: $1 (see --help)" ;;
    esac
    shift
done

cd "$REPO_ROOT"
driver=(python3 "$REPO_ROOT/scripts/brain_driver.py" memory --max-memory 367001600
        --limit-mib $((350 - 32)) --turn-ms "$turn_ms" --match-ms "$match_ms"
        --tolerance-ms "${WUZI_TIME_TOLERANCE_MS:-0}"
        --move-timeout 60 --end-timeout 5)
workdir="$(mktemp -d)"
trap 'stop_wine_keepalive; rm -rf "$workdir"' EXIT
status=0

log "building the Linux release brain"
cargo build --release --locked --quiet --bin pbrain-wuzi
log "Linux build: $moves moves at timeout_turn $turn_ms ms, max_memory 367001600"
"${driver[@]}" --moves "$moves" --metric rss --cwd "$workdir" \
    -- "$REPO_ROOT/target/release/pbrain-wuzi" || status=1

if (( !use_wine )); then
    log "Wine run not asked for (--no-wine)"
elif ! have_windows_toolchain || ! have_wine; then
    have_windows_toolchain || explain_windows_toolchain
    have_wine || log "wine is not installed"
    log "SKIPPED: Windows build under Wine (install with scripts/setup-windows-toolchain.sh)"
else
    wine_prefix_ready || "$REPO_ROOT/scripts/setup-windows-toolchain.sh" --no-install
    "$REPO_ROOT/scripts/package-gomocup.sh" --strict >/dev/null
    unpacked="$REPO_ROOT/target/gomocup/unpacked"
    unpack_zip "$REPO_ROOT/target/gomocup/wuzi.zip" "$unpacked"
    exe="$(find "$unpacked" -maxdepth 1 -name 'pbrain-*.exe' | sort | head -n 1)"
    start_wine_keepalive "$exe"
    log "Windows build under Wine: $wine_moves moves at timeout_turn $turn_ms ms"
    "${driver[@]}" --moves "$wine_moves" --metric uss --no-tree --cwd "$workdir" \
        -- wine "$exe" || status=1
fi
if (( status )); then log "FAILED: memory at or over the limit, a move too slow, or the brain misbehaved"; fi
exit "$status"
