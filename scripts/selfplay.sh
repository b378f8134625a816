#!/usr/bin/env bash
# Self-play match of the current build against itself or a saved baseline, with wuzi-match.
#
# usage: scripts/selfplay.sh [options] [-- extra wuzi-match options]
#   -b PATH   baseline brain to play against        (default: the current build itself)
#   -r RULE   freestyle | standard | renju | caro   (default: freestyle)
#   -s SIZE   board size                            (default: 15)
#   -t MS     time per move                         (default: 200)
#   -m MS     time per game, 0 = unlimited          (default: 0)
#   -g N      games                                 (default: 20)
#   -j N      games at once                         (default: 1)
#   -o FILE   opening file (default: the first opening list in openings/ whose name
#             contains both the rule and the size, if any; the book-* files are not lists)
#   -S NAME   save the current build as baselines/pbrain-wuzi-NAME and exit
# Builds the release binaries first and prints wuzi-match's progress and final table.
# Example: scripts/selfplay.sh -S before; (change the engine); scripts/selfplay.sh -b baselines/pbrain-wuzi-before
set -euo pipefail
cd "$(dirname "$0")/.."

baseline="" rule="freestyle" size=15 turn=200 match=0 games=20 jobs=1 openings="" save=""
while getopts "b:r:s:t:m:g:j:o:S:h" opt; do
    case "$opt" in
        b) baseline="$OPTARG" ;;
        r) rule="$OPTARG" ;;
        s) size="$OPTARG" ;;
        t) turn="$OPTARG" ;;
        m) match="$OPTARG" ;;
        g) games="$OPTARG" ;;
        j) jobs="$OPTARG" ;;
        o) openings="$OPTARG" ;;
        S) save="$OPTARG" ;;
        h) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift

cargo build --release --quiet --bin pbrain-wuzi --bin wuzi-match
current=target/release/pbrain-wuzi

if [ -n "$save" ]; then
    mkdir -p baselines
    cp "$current" "baselines/pbrain-wuzi-$save"
    echo "saved baselines/pbrain-wuzi-$save"
    exit 0
fi

if [ -z "$openings" ] && [ -d openings ]; then
    for file in openings/*; do
        name=$(basename "$file" | tr '[:upper:]' '[:lower:]')
        case "$name" in
            book-*) ;;   # the brain's opening books, not opening lists
            *"$rule"*"$size"* | *"$size"*"$rule"*) openings="$file"; break ;;
        esac
    done
fi

# Self-play runs two copies of the same binary; wuzi-match names them -1 and -2.
args=(--engine "cmd=$current" name=wuzi)
if [ -n "$baseline" ]; then
    [ -x "$baseline" ] || { echo "selfplay: baseline $baseline is not an executable" >&2; exit 2; }
    args+=(--engine "cmd=$baseline" "name=$(basename "$baseline")")
else
    args+=(--engine "cmd=$current" name=wuzi)
fi
args+=(--rule "$rule" --size "$size" --turn "$turn" --match "$match" --games "$games" -j "$jobs")
if [ -n "$openings" ]; then
    echo "openings: $openings"
    args+=(--openings "$openings")
else
    echo "openings: none (every game starts from the empty board)"
fi
args+=(--out "matches/selfplay-$(date -u +%Y%m%d-%H%M%S)")

exec target/release/wuzi-match "${args[@]}" "$@"
