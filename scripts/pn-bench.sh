#!/usr/bin/env bash
# The proof-number solver against the threat search alone on a set of positions: one
# Markdown table row per position, for docs/solver.md.
#
# usage: scripts/pn-bench.sh [--kinds LIST] [--skip N] [--first N] [--stones MIN-MAX]
#                            [--rule R] [--attacker black|white] FILE [NODES] [TIME_MS]
#   FILE      a puzzle file: tab-separated id, rule, size, kind, moves, answers, note (the
#             shared suite ../shared/positions/puzzles.txt, tests/data/*.txt, the self-play
#             probe sets scripts/positions/*.tsv); or an opening list in offset format
#             (openings/*.txt, scripts/positions/three-stone-openings.txt: `dx,dy, …`
#             from the centre of a 15x15 board, black first), whose rows are of kind
#             "opening" under --rule (default freestyle), named FILE#LINE
#   NODES     node budget of each search, both solvers (default: 2000000)
#   TIME_MS   time limit of each search (default: 60000)
#   --kinds   the kinds of rows to run, comma-separated (default: win; an opening list's
#             rows are kind opening and always run)
#   --skip N  leave out the first N rows (after --kinds and --stones)
#   --first N the first N rows kept (after --skip)
#   --stones  only positions of MIN to MAX stones
#   --attacker  --pn proves that side's win only (`solve --pn --attacker`): for an
#             opening with white to move, `--attacker black` proves black's win ("loss"
#             for white) rather than trying white's first
# The threat search alone is `solve --win-only` when the side whose win is sought is to
# move (a win row, or --attacker naming the side to move), else plain `solve` (verdict
# win, defend, lost or none for the side to move). Uses target/release/pbrain-wuzi as
# built (build it first). Each --pn proof is written to a temporary folder and checked
# again with `solve --check`; the time of --pn includes writing and checking its proof.
# Runs one search at a time, at nice 10: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/pn-bench.sh [--kinds LIST] [--skip N] [--first N] [--stones MIN-MAX] [--rule R] [--attacker black|white] FILE [NODES] [TIME_MS]"
kinds=win
skip=0
first=0
stones=""
rule_opt=0
attacker=""
while [ $# -gt 0 ]; do
    case "$1" in
        --kinds) kinds=$2; shift 2 ;;
        --skip) skip=$2; shift 2 ;;
        --first) first=$2; shift 2 ;;
        --stones) stones=$2; shift 2 ;;
        --rule) rule_opt=$2; shift 2 ;;
        --attacker) attacker=$2; shift 2 ;;
        --*) echo "$usage" >&2; exit 2 ;;
        *) break ;;
    esac
done
file=${1:?$usage}
nodes=${2:-2000000}
time_ms=${3:-60000}
brain=target/release/pbrain-wuzi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The rows as puzzle rows: an opening list's lines become kind "opening" positions in pos
# notation (column letter from a, row from 1; the centre of 15x15 is h8).
rows() {
    if head -20 "$file" | grep -q $'\t'; then
        grep -v '^#' "$file" | awk -F'\t' -v kinds="$kinds" \
            'BEGIN { n = split(kinds, k, ","); for (i = 1; i <= n; i++) want[k[i]] = 1 }
             NF >= 5 && ($4 in want)'
    else
        awk -v rule="$rule_opt" -v name="$(basename "$file")" '
            /^[[:space:]]*(#|$)/ { next }
            {
                line++
                gsub(/[[:space:]]/, "")
                sub(/,$/, "")
                n = split($0, v, ",")
                moves = ""
                for (i = 1; i + 1 <= n; i += 2) {
                    moves = moves sprintf("%c%d", 97 + 7 + v[i], 8 + v[i + 1])
                }
                printf "%s#%d\t%s\t15\topening\t%s\t-\t\n", name, line, rule, moves
            }' "$file"
    fi
}

# The number of stones of a move string in pos notation.
stone_count() {
    echo "$1" | grep -o '[a-z]' | wc -l
}

echo "| position | answers | threat search alone | ms | --pn | nodes | ms | proof lines | --check |"
echo "|---|---|---|---:|---|---:|---:|---:|---|"
kept=0
rows | while IFS=$'\t' read -r id rule size kind moves answers note; do
    n=$(stone_count "$moves")
    if [ -n "$stones" ] && { [ "$n" -lt "${stones%-*}" ] || [ "$n" -gt "${stones#*-}" ]; }; then
        continue
    fi
    kept=$((kept + 1))
    if [ "$kept" -le "$skip" ]; then
        continue
    fi
    if [ "$first" -gt 0 ] && [ "$kept" -gt $((skip + first)) ]; then
        break
    fi
    to_move=black
    if [ $((n % 2)) -eq 1 ]; then to_move=white; fi
    alone_opts=(--win-only)
    if { [ -n "$attacker" ] && [ "$attacker" != "$to_move" ]; } ||
        { [ -z "$attacker" ] && [ "$kind" != "win" ]; }; then
        alone_opts=()
    fi
    pn_opts=()
    if [ -n "$attacker" ]; then pn_opts=(--attacker "$attacker"); fi
    alone=$(nice -n 10 "$brain" solve --rule "$rule" --size "$size" "${alone_opts[@]}" \
        --nodes "$nodes" --time-ms "$time_ms" "$moves")
    alone_verdict=$(echo "$alone" | head -1 | awk '{print $1, $2}')
    alone_ms=$(echo "$alone" | sed -n 2p | awk '{printf "%.0f", $4}')
    proof="$work/proof.txt"
    rm -f "$proof"
    pn=$(nice -n 10 "$brain" solve --pn --rule "$rule" --size "$size" --nodes "$nodes" \
        --time-ms "$time_ms" "${pn_opts[@]}" --proof "$proof" "$moves" 2>/dev/null)
    pn_verdict=$(echo "$pn" | head -1)
    read -r _ pn_nodes _ _ _ _ _ pn_ms _ _ lines _ <<<"$(echo "$pn" | sed -n 2p)"
    checked="-"
    if [ -f "$proof" ]; then
        checked=$(nice -n 10 "$brain" solve --check "$proof" | cut -d: -f1)
    fi
    printf "| %s | %s | %s | %s | %s | %s | %.0f | %s | %s |\n" "$id" "$answers" \
        "$alone_verdict" "$alone_ms" "$pn_verdict" "$pn_nodes" "$pn_ms" "$lines" "$checked"
done
