#!/usr/bin/env bash
# Checks that the Windows tournament build is reproducible: the repository's files (as
# git lists them: tracked and untracked-but-not-ignored, as they are in the working tree)
# are copied into two folders of different names and path lengths; each builds the
# Gomocup package from clean (scripts/package-gomocup.sh, with a target/ of its own),
# and the two executables and the two ZIPs must be byte-identical. Prints their SHA-256.
# Takes two release builds for Windows (about 2 minutes each on 2 cores).
# Skips (exit 0, with a message) without the Windows toolchain, or without git; --strict
# turns a skip into exit 2. The copies are deleted at the end unless --keep.
#
# Usage: scripts/windows-repro-check.sh [--strict] [--keep]
set -euo pipefail
# shellcheck source=scripts/windows-common.sh
source "$(dirname "$0")/windows-common.sh"

strict=0 keep=0
for arg in "$@"; do
    case "$arg" in
        --strict) strict=1 ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) die "unknown option: $arg (see --help)" ;;
    esac
done

skip() {
    log "$*"
    if (( strict )); then log "ERROR: cannot check the Windows build"; exit 2; fi
    log "SKIPPED: reproducibility of the Windows build not checked"
    exit 0
}

have_windows_toolchain || { explain_windows_toolchain; skip "no Windows cross-toolchain"; }
command -v git >/dev/null && git -C "$REPO_ROOT" rev-parse --git-dir >/dev/null 2>&1 \
    || skip "not a git checkout: cannot list the repository's files"

work="$(mktemp -d "${TMPDIR:-/tmp}/wuzi-repro.XXXXXX")"
if (( keep )); then
    log "keeping the copies in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
# Two checkouts as two users would have them: different folders, different path lengths.
checkouts=("$work/a" "$work/second-checkout")

for dir in "${checkouts[@]}"; do
    mkdir -p "$dir"
    (
        cd "$REPO_ROOT"
        git ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' file; do
                # A tracked file deleted in the working tree is not part of the build.
                if [[ -e "$file" ]]; then cp --parents -P "$file" "$dir/"; fi
            done
    )
    log "building the package in $dir"
    "$dir/scripts/package-gomocup.sh" --strict >&2
done

files=("target/$WIN_TARGET/release/pbrain-wuzi.exe" "target/gomocup/wuzi.zip")
different=0
for file in "${files[@]}"; do
    first="$(sha256sum < "${checkouts[0]}/$file" | cut -d' ' -f1)"
    second="$(sha256sum < "${checkouts[1]}/$file" | cut -d' ' -f1)"
    if [[ "$first" == "$second" ]]; then
        echo "same     $first  $(basename "$file")"
    else
        echo "DIFFERS  $first  $(basename "$file") (in ${checkouts[0]})"
        echo "         $second  $(basename "$file") (in ${checkouts[1]}:" \
            "$(cmp -l "${checkouts[0]}/$file" "${checkouts[1]}/$file" 2>/dev/null | wc -l) bytes differ)"
        different=1
    fi
done
if (( different )); then
    log "ERROR: two builds of the same source differ (--keep keeps them to compare," \
        "e.g. with strings or objdump -x)"
    exit 1
fi
log "reproducible: two clean builds in two folders gave the same executable and ZIP"
