#!/usr/bin/env bash
# A wuzi-match match on a Slurm cluster: the shards as a job array, then a merge job that
# starts when every shard has succeeded.
#
# usage: scripts/slurm-match.sh -e ENGINE -e ENGINE -g GAMES -n SHARDS -d RESULTS [options]
#                               [-- more wuzi-match options]
#   -e SPEC   an engine, as wuzi-match's --engine takes it, in one word:
#             'cmd=/shared/bin/pbrain-new name=new nodes=20000' (given twice)
#   -o FILE   opening list (each opening is played twice, colours swapped)
#   -g N      games of the whole match
#   -n N      shards: array tasks, each playing a slice of the opening pairs
#   -d DIR    results: shard-K/ per shard, merged/ (summary.json, report.html), logs/, jobs/
#   -j N      games at once in each shard, and the CPUs each task asks for (default 1)
#   -m PATH   the wuzi-match binary (default target/release/wuzi-match)
#   -p NAME   partition;  -t TIME  time limit of each task (sbatch --time)
#   -w        wait for the merge job and print the merged table
# Paths are made absolute; the binaries, the openings and RESULTS must be on a filesystem
# every node sees at the same path. The jobs inherit this shell's environment (sbatch's
# default), WUZI_CONFIG included. Prints the job ids and where the merged report will be.
# Example:
#   scripts/slurm-match.sh -e "cmd=$PWD/target/release/pbrain-wuzi name=new" \
#       -e "cmd=$PWD/baselines/pbrain-wuzi-old name=old" -o openings/freestyle-15-240.txt \
#       -g 480 -n 8 -d /shared/matches/new-old -- --rule freestyle --turn 1000
set -euo pipefail

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
fail() { echo "slurm-match: $*" >&2; exit 2; }

engines=() openings="" games="" shards="" results="" jobs=1 partition="" time_limit="" wait=0
wuzi_match="$(cd "$(dirname "$0")/.." && pwd)/target/release/wuzi-match"
while getopts "e:o:g:n:d:j:m:p:t:wh" opt; do
    case "$opt" in
        e) engines+=("$OPTARG") ;;
        o) openings="$OPTARG" ;;
        g) games="$OPTARG" ;;
        n) shards="$OPTARG" ;;
        d) results="$OPTARG" ;;
        j) jobs="$OPTARG" ;;
        m) wuzi_match="$OPTARG" ;;
        p) partition="$OPTARG" ;;
        t) time_limit="$OPTARG" ;;
        w) wait=1 ;;
        h) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
extra=("$@")

[ "${#engines[@]}" = 2 ] || fail "need exactly two -e ENGINE (see -h)"
[[ "$games" =~ ^[1-9][0-9]*$ ]] || fail "-g GAMES: a positive number"
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || fail "-n SHARDS: a positive number"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || fail "-j N: a positive number"
[ -n "$results" ] || fail "-d RESULTS: where the shards and the merged report go"
command -v sbatch >/dev/null || fail "sbatch not found: no Slurm client here"
wuzi_match="$(realpath "$wuzi_match")"
[ -x "$wuzi_match" ] || fail "no wuzi-match at $wuzi_match (cargo build --release, or -m PATH)"
results="$(realpath -m "$results")"

# wuzi-match's words for each engine, with a relative cmd= made absolute.
engine_args=()
for spec in "${engines[@]}"; do
    engine_args+=(--engine)
    for word in $spec; do
        if [[ "$word" == cmd=* && "${word#cmd=}" == */* ]]; then
            word="cmd=$(realpath -m "${word#cmd=}")"
            [ -x "${word#cmd=}" ] || fail "engine ${word#cmd=} is not an executable"
        fi
        engine_args+=("$word")
    done
done
match_args=("${engine_args[@]}" --games "$games")
if [ -n "$openings" ]; then
    [ -f "$openings" ] || fail "no opening list $openings"
    match_args+=(--openings "$(realpath "$openings")")
fi
match_args+=("${extra[@]}")

mkdir -p "$results/logs" "$results/jobs"
quoted() { printf ' %q' "$@"; }
directives() {
    echo "#!/bin/bash"
    echo "#SBATCH --job-name=$1"
    echo "#SBATCH --output=$2"
    [ -n "$partition" ] && echo "#SBATCH --partition=$partition"
    [ -n "$time_limit" ] && echo "#SBATCH --time=$time_limit"
    return 0
}
{
    directives wuzi-shards "$results/logs/shard-%a.out"
    echo "#SBATCH --array=1-$shards"
    echo "#SBATCH --cpus-per-task=$jobs"
    echo "set -euo pipefail"
    echo "k=\"\$SLURM_ARRAY_TASK_ID\""
    echo "exec$(quoted "$wuzi_match" "${match_args[@]}") --shard \"\$k/$shards\" -j $jobs --out $(printf %q "$results")/shard-\"\$k\""
} >"$results/jobs/shards.sbatch"
shard_dirs=()
for k in $(seq "$shards"); do shard_dirs+=("$results/shard-$k"); done
{
    directives wuzi-merge "$results/logs/merge.out"
    echo "set -euo pipefail"
    echo "exec$(quoted "$wuzi_match" merge "${shard_dirs[@]}" --out "$results/merged")"
} >"$results/jobs/merge.sbatch"

array_id="$(sbatch --parsable "$results/jobs/shards.sbatch")"
array_id="${array_id%%;*}"
merge_id="$(sbatch --parsable --dependency="afterok:$array_id" --kill-on-invalid-dep=yes \
    "$results/jobs/merge.sbatch")"
merge_id="${merge_id%%;*}"
echo "shards: job $array_id, array 1-$shards (logs $results/logs/shard-K.out)"
echo "merge:  job $merge_id, after every shard succeeds (log $results/logs/merge.out)"
echo "merged report: $results/merged/report.html (summary.json beside it)"
[ "$wait" = 1 ] || exit 0

# The merge job's state until it has left the queue (COMPLETED, FAILED, CANCELLED, ...).
state=""
while :; do
    state="$(scontrol show job "$merge_id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)"
    case "$state" in
        PENDING|RUNNING|CONFIGURING|COMPLETING|"") ;;
        *) break ;;
    esac
    if [ -z "$state" ]; then
        # Gone from the controller's memory: it finished long enough ago.
        [ -f "$results/merged/summary.json" ] && state=COMPLETED || state=UNKNOWN
        break
    fi
    sleep 1
done
echo "merge job $merge_id: $state"
[ "$state" = COMPLETED ] || { tail -n 20 "$results"/logs/*.out >&2 || true; exit 1; }
cat "$results/logs/merge.out"
