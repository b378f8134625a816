#!/usr/bin/env bash
# Soak: the brain plays many short games against a second copy of itself, under every
# rule (freestyle, standard, renju, caro) on 15x15 and 20x20, with TAKEBACK, RESTART,
# YXSTOP, INFO changes (timeout_turn, max_memory, a match clock started or ended) and
# BOARD resyncs mixed in, a quarter of the games on a match clock, processes sometimes
# started anew. Every answer is judged (the library's rules referee every move) and the
# summary counts crashes, illegal moves, renju fouls, time losses, protocol errors and
# the brain's own reports of bugs, and gives the peak memory (VmHWM) of any brain
# process against 318 MiB (Gomocup's 350 MiB less the margin of scripts/memory-check.sh).
# A move is late after its limit + 10 % + 50 ms; no move within limit + 2 s is a crash.
#
# usage: scripts/soak.sh [options] [-- extra wuzi-tools soak options]
#   -g N      games                                   (default: 1000)
#   -t MS     turn time in ms, MS or LO-HI             (default: 50-200)
#   -s SEED   seed of the games' settings              (default: 1)
#   -j N      games at once, two brains each           (default: 1)
#   -b PATH   the brain to soak                        (default: target/release/pbrain-wuzi)
#   -o FILE   also write everything printed to FILE
# Builds the release binaries first. Transcripts of games with a fault go to
# target/soak/seed-SEED/. Exit status 0 when nothing failed. 1,000 games at the default
# clock take about half an hour, one at a time.
# Example: scripts/soak.sh -g 20 -t 30-60. `wuzi-tools help` lists the extra options
# (--match-ms, --rules, --sizes, --from K to play game K of a seed again, --plain).
set -euo pipefail
cd "$(dirname "$0")/.."

games=1000 turn=50-200 seed=1 jobs=1 brain="" out=""
while getopts "g:t:s:j:b:o:h" opt; do
    case "$opt" in
        g) games="$OPTARG" ;;
        t) turn="$OPTARG" ;;
        s) seed="$OPTARG" ;;
        j) jobs="$OPTARG" ;;
        b) brain="$OPTARG" ;;
        o) out="$OPTARG" ;;
        h) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift

cargo build --release --quiet --bin pbrain-wuzi --bin wuzi-tools
brain="${brain:-target/release/pbrain-wuzi}"
[ -x "$brain" ] || { echo "soak: $brain is not an executable" >&2; exit 2; }
brain="$(cd "$(dirname "$brain")" && pwd)/$(basename "$brain")"

# The brains run in a scratch folder, as managers run them away from their own folder.
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
args=(soak --brain "$brain" --games "$games" --turn-ms "$turn" --seed "$seed"
      --jobs "$jobs" --dir "$workdir" --log-dir "target/soak/seed-$seed" "$@")
status=0
if [ -n "$out" ]; then
    target/release/wuzi-tools "${args[@]}" | tee "$out" || status=${PIPESTATUS[0]}
else
    target/release/wuzi-tools "${args[@]}" || status=$?
fi
exit "$status"
