# shellcheck shell=bash
# Shared settings for the Windows build scripts. Sourced, not run:
#   source "$(dirname "$0")/windows-common.sh"
# Defines REPO_ROOT, WIN_TARGET, WIN_LINKER, the Wine prefix under target/, and checks.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WIN_TARGET=x86_64-pc-windows-gnu
WIN_LINKER=x86_64-w64-mingw32-gcc
WIN_OBJDUMP=x86_64-w64-mingw32-objdump
# A private Wine prefix inside target/: never the user's ~/.wine, never committed.
export WINEPREFIX="${WUZI_WINEPREFIX:-$REPO_ROOT/target/wineprefix}"
# Wine's own diagnostics would land on the brain's stderr, which managers read as replies.
export WINEDEBUG=-all
# The test-only bcryptprimitives.dll stand-in (see scripts/wine/bcryptprimitives.c).
export WINE_SHIM_DLL="$REPO_ROOT/target/wine/bcryptprimitives.dll"

log() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The Rust standard library for the Windows target, in the sysroot cargo will use.
have_windows_std() {
    local sysroot
    # From the repository: a rust-toolchain file there would choose the toolchain.
    sysroot="$(cd "$REPO_ROOT" && rustc --print sysroot 2>/dev/null)" || return 1
    compgen -G "$sysroot/lib/rustlib/$WIN_TARGET/lib/libstd-*.rlib" >/dev/null
}

have_windows_linker() { command -v "$WIN_LINKER" >/dev/null && command -v "$WIN_OBJDUMP" >/dev/null; }

have_windows_toolchain() { have_windows_std && have_windows_linker; }

# Explains what is missing for the cross-build (to stderr).
explain_windows_toolchain() {
    have_windows_std || log "missing: Rust standard library for $WIN_TARGET (rustup target add $WIN_TARGET)"
    have_windows_linker || log "missing: $WIN_LINKER / $WIN_OBJDUMP (apt-get install gcc-mingw-w64-x86-64)"
    log "run scripts/setup-windows-toolchain.sh to install them"
}

have_wine() { command -v wine >/dev/null && command -v wineboot >/dev/null && command -v wineserver >/dev/null; }

# The prefix exists and holds the bcryptprimitives.dll stand-in.
wine_prefix_ready() {
    [[ -f "$WINEPREFIX/system.reg" && -f "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ]]
}

# Unpacks the Gomocup ZIP ($1) into a fresh folder ($2), as a user would.
unpack_zip() {
    rm -rf "$2"
    mkdir -p "$2"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"
}

# Keeps one Wine process running for the whole script: an idle copy of the brain ($1)
# waiting on a pipe. Between two brain sessions the prefix's wineserver would otherwise shut
# down, and a session started while it shuts down can fail to start (seen once: an empty
# session). stop_wine_keepalive closes the pipe; the idle brain then exits on end of input.
start_wine_keepalive() {
    exec {WINE_KEEPALIVE_FD}> >(exec wine "$1" >/dev/null 2>&1)
    wine cmd /c exit >/dev/null 2>&1 || true   # the prefix is up before the first session
}

stop_wine_keepalive() {
    if [[ -n "${WINE_KEEPALIVE_FD:-}" ]]; then
        exec {WINE_KEEPALIVE_FD}>&-
        WINE_KEEPALIVE_FD=
    fi
    # Wine processes started after the keepalive inherit its pipe, so closing it is not
    # enough for the idle brain to see end of input. Shut down this script's private prefix
    # so nothing outlives the script (a lingering process could hold CI's output open).
    if have_wine; then
        wineserver -k >/dev/null 2>&1 || true
        wineserver -w >/dev/null 2>&1 || true
    fi
}
