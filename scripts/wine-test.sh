#!/usr/bin/env bash
# Tests the Windows tournament brain under Wine, as Gomocup/Piskvork would run it:
#   builds and packages it (scripts/package-gomocup.sh), unpacks the ZIP into a fresh
#   folder, starts pbrain-*.exe from another working directory and checks, with CR LF line
#   ends throughout:
#   - protocol: ABOUT -> one line, START 15 -> OK, INFO gets no reply, malformed lines ->
#     ERROR/UNKNOWN, lower case / LF / lone CR accepted, TURN/RESTART/BEGIN, YXSTOP ends a
#     60 s search at once (the stdin reader thread works), END mid-search exits within 1 s;
#   - wuzi.conf is read from the executable's folder, not the working directory;
#   - the four Gomocup acceptance positions (tests/data/gomocup-acceptance.txt).
# Skips (exit 0, with a message) when the Windows target, the mingw linker or Wine is not
# installed: run scripts/setup-windows-toolchain.sh first. --strict turns a skip into exit 2.
#
# With --cargo-test it also runs the whole test suite built for Windows under Wine
# (about 2 minutes more on 2 cores).
#
# Usage: scripts/wine-test.sh [--strict] [--cargo-test] [-v]
# Env: WUZI_POSITIONS=path of gomocup-acceptance.txt (default: tests/data/ in the repo)
#      WUZI_END_TIMEOUT=seconds the brain may take to exit after END (default 1.0)
set -euo pipefail
# shellcheck source=scripts/windows-common.sh
source "$(dirname "$0")/windows-common.sh"

strict=0 verbose=() cargo_test=0
for arg in "$@"; do
    case "$arg" in
        --strict) strict=1 ;;
        --cargo-test) cargo_test=1 ;;
        -v|--verbose) verbose=(-v) ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) die "unknown option: $arg (see --help)" ;;
    esac
done

skip() {
    log "$*"
    if (( strict )); then log "ERROR: cannot run the Wine tests"; exit 2; fi
    log "SKIPPED: Wine tests not run (install with scripts/setup-windows-toolchain.sh)"
    exit 0
}

have_windows_toolchain || { explain_windows_toolchain; skip "no Windows cross-toolchain"; }
have_wine || skip "wine is not installed (Debian packages wine, wine64)"
if ! wine_prefix_ready; then
    "$REPO_ROOT/scripts/setup-windows-toolchain.sh" --no-install \
        || skip "could not prepare the Wine prefix $WINEPREFIX"
fi

"$REPO_ROOT/scripts/package-gomocup.sh" --strict
zip_path="$REPO_ROOT/target/gomocup/wuzi.zip"
unpacked="$REPO_ROOT/target/gomocup/unpacked"
unpack_zip "$zip_path" "$unpacked"
exe="$(find "$unpacked" -maxdepth 1 -name 'pbrain-*.exe' | sort | head -n 1)"
[[ -n "$exe" ]] || die "no pbrain-*.exe at the root of $zip_path"

positions="${WUZI_POSITIONS:-$REPO_ROOT/tests/data/gomocup-acceptance.txt}"

# Managers start the brain from a folder of their own, not the executable's.
workdir="$(mktemp -d)"
trap 'stop_wine_keepalive; rm -rf "$workdir"' EXIT
start_wine_keepalive "$exe"

driver=(python3 "$REPO_ROOT/scripts/brain_driver.py")
status=0
log "protocol session against $(basename "$exe") under $(wine --version 2>/dev/null)"
"${driver[@]}" protocol "${verbose[@]}" --cwd "$workdir" --reply-timeout 10 \
    --move-timeout 30 --end-timeout "${WUZI_END_TIMEOUT:-1.0}" -- wine "$exe" || status=1
# The brain finds wuzi.conf beside its executable (current_exe), not in the working
# directory: a copy of the package whose wuzi.conf holds an unknown key must report that key
# in a MESSAGE before its first move (never before the reply to START).
probe="$workdir/probe-package"
cp -r "$unpacked" "$probe"
printf '[engine]\r\nwine_probe_key = 1\r\n' >"$probe/wuzi.conf"
session="$( (printf 'START 15\r\nBEGIN\r\n'; sleep 3; printf 'END\r\n') \
    | (cd "$workdir" && timeout 20 wine "$probe/$(basename "$exe")") 2>&1 | tr -d '\r' || true)"
if grep -q '^MESSAGE .*wine_probe_key' <<<"$session" && grep -qx 'OK' <<<"$session"; then
    echo "ok   wuzi.conf beside the executable is read (working directory elsewhere)"
else
    echo "FAIL wuzi.conf beside the executable is not read; session: $(tr '\n' '|' <<<"$session")"
    status=1
fi

if [[ -f "$positions" ]]; then
    log "Gomocup acceptance positions from $positions"
    "${driver[@]}" acceptance "${verbose[@]}" --cwd "$workdir" --positions "$positions" \
        --turn-ms 2000 --move-timeout 30 --end-timeout 5 -- wine "$exe" || status=1
else
    log "acceptance positions not found at $positions: acceptance checks not run"
    status=1
fi
if (( cargo_test )); then
    log "cargo test for $WIN_TARGET under Wine"
    (cd "$REPO_ROOT" && CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$REPO_ROOT/scripts/wine-run.sh" \
        cargo test --locked --target "$WIN_TARGET") || status=1
fi
if (( status )); then log "FAILED"; else log "all Wine checks passed"; fi
exit "$status"
