#!/usr/bin/env bash
# The proof-number solver against the threat search alone on the win puzzles of a puzzle
# file (the shared suite's format): one Markdown table row per puzzle, for docs/solver.md.
#
# usage: scripts/pn-bench.sh PUZZLES [NODES] [TIME_MS]
#   PUZZLES   e.g. ../shared/positions/puzzles.txt
#   NODES     node budget of each search, both solvers (default: 2000000)
#   TIME_MS   time limit of each search (default: 60000)
# Uses target/release/pbrain-wuzi as built (build it first). Each --pn proof is written
# to a temporary folder and checked again with `solve --check`; the time of --pn includes
# writing and checking its proof. Runs at nice 10: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."

puzzles=${1:?usage: scripts/pn-bench.sh PUZZLES [NODES] [TIME_MS]}
nodes=${2:-2000000}
time_ms=${3:-60000}
brain=target/release/pbrain-wuzi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| puzzle | answers | threat search alone | ms | --pn | nodes | ms | proof lines | --check |"
echo "|---|---|---|---:|---|---:|---:|---:|---|"
grep -v '^#' "$puzzles" | awk -F'\t' '$4 == "win"' |
while IFS=$'\t' read -r id rule size kind moves answers note; do
    alone=$(nice -n 10 "$brain" solve --rule "$rule" --size "$size" --win-only \
        --nodes "$nodes" --time-ms "$time_ms" "$moves")
    alone_verdict=$(echo "$alone" | head -1 | awk '{print $1, $2}')
    alone_ms=$(echo "$alone" | sed -n 2p | awk '{printf "%.0f", $4}')
    proof="$work/$id.txt"
    pn=$(nice -n 10 "$brain" solve --pn --rule "$rule" --size "$size" --nodes "$nodes" \
        --time-ms "$time_ms" --proof "$proof" "$moves" 2>/dev/null)
    pn_verdict=$(echo "$pn" | head -1)
    read -r _ pn_nodes _ _ _ _ _ pn_ms _ _ lines _ <<<"$(echo "$pn" | sed -n 2p)"
    checked="-"
    if [ -f "$proof" ]; then
        checked=$("$brain" solve --check "$proof" | cut -d: -f1)
    fi
    printf "| %s | %s | %s | %s | %s | %s | %.0f | %s | %s |\n" "$id" "$answers" \
        "$alone_verdict" "$alone_ms" "$pn_verdict" "$pn_nodes" "$pn_ms" "$lines" "$checked"
done
