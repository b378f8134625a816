#!/usr/bin/env bash
# Installs what the Windows tournament build and its Wine tests need, idempotently:
#   1. Debian packages: gcc-mingw-w64-x86-64 (linker, objdump), wine + wine64 (tests only);
#   2. the Rust standard library for x86_64-pc-windows-gnu (rustup target add);
#   3. a private Wine prefix under target/wineprefix holding a test-only stand-in for
#      bcryptprimitives.dll, which Debian's Wine 8.0 lacks (real Windows ships it).
# A second run does nothing but check. Takes ~2 minutes on a fresh Debian machine
# (apt downloads ~300 MB; wineboot ~10 s).
#
# Usage: scripts/setup-windows-toolchain.sh [--best-effort] [--no-install] [--no-wine]
#   --best-effort  exit 0 even when something could not be installed (for CI: the test
#                  scripts then skip with a message); without it such a failure exits 2.
#   --no-install   do not call apt-get or rustup; only (re)build the Wine prefix.
#   --no-wine      skip Wine and the prefix (cross-build only).
set -euo pipefail
# shellcheck source=scripts/windows-common.sh
source "$(dirname "$0")/windows-common.sh"

best_effort=0 install=1 want_wine=1
for arg in "$@"; do
    case "$arg" in
        --best-effort) best_effort=1 ;;
        --no-install) install=0 ;;
        --no-wine) want_wine=0 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) die "unknown option: $arg (see --help)" ;;
    esac
done

# rustup acts on the toolchain in force in the current folder: the repository's.
cd "$REPO_ROOT"
problems=()

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
    else return 1
    fi
}

# --- 1. Debian packages -----------------------------------------------------------------
packages=(gcc-mingw-w64-x86-64)
(( want_wine )) && packages+=(wine wine64)
missing=()
if command -v dpkg-query >/dev/null; then
    for p in "${packages[@]}"; do pkg_installed "$p" || missing+=("$p"); done
fi
if (( ${#missing[@]} )); then
    if (( !install )); then
        problems+=("Debian packages not installed (--no-install): ${missing[*]}")
    elif ! command -v apt-get >/dev/null; then
        problems+=("no apt-get on this machine; install by hand: ${missing[*]}")
    else
        log "installing Debian packages: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        if ! as_root apt-get update -qq; then
            problems+=("apt-get update failed (not root and no passwordless sudo?)")
        elif ! as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
            problems+=("apt-get install ${missing[*]} failed")
        fi
    fi
else
    log "Debian packages present: ${packages[*]}"
fi

# --- 2. Rust standard library for the Windows target --------------------------------------
if have_windows_std; then
    log "Rust std for $WIN_TARGET present ($(rustc --version))"
elif (( !install )); then
    problems+=("Rust std for $WIN_TARGET missing (--no-install)")
elif ! command -v rustup >/dev/null; then
    # Debian's libstd-rust-dev-windows matches only Debian's own (older) rustc, not this one.
    problems+=("no rustup: cannot add $WIN_TARGET for $(rustc --version 2>/dev/null || echo 'rustc')")
else
    log "rustup target add $WIN_TARGET"
    if ! rustup target add "$WIN_TARGET" >&2 || ! have_windows_std; then
        problems+=("rustup target add $WIN_TARGET failed (rustup's download server unreachable?)")
    fi
fi

# --- 3. Wine prefix with the bcryptprimitives.dll stand-in --------------------------------
if (( want_wine )); then
    if ! have_wine; then
        problems+=("wine not available: Wine tests will skip")
    elif ! command -v "$WIN_LINKER" >/dev/null; then
        problems+=("$WIN_LINKER missing: cannot build the bcryptprimitives.dll stand-in")
    else
        if [[ ! -f "$WINEPREFIX/system.reg" ]]; then
            log "creating Wine prefix $WINEPREFIX (wineboot -i)"
            mkdir -p "$(dirname "$WINEPREFIX")"
            wineboot -i >/dev/null 2>&1 || true
            wineserver -w || true
            [[ -f "$WINEPREFIX/system.reg" ]] || problems+=("wineboot -i did not create $WINEPREFIX")
        else
            log "Wine prefix present: $WINEPREFIX"
        fi
        src="$REPO_ROOT/scripts/wine/bcryptprimitives.c"
        def="$REPO_ROOT/scripts/wine/bcryptprimitives.def"
        if [[ ! -f "$WINE_SHIM_DLL" || "$src" -nt "$WINE_SHIM_DLL" || "$def" -nt "$WINE_SHIM_DLL" ]]; then
            log "building $WINE_SHIM_DLL"
            mkdir -p "$(dirname "$WINE_SHIM_DLL")"
            "$WIN_LINKER" -O2 -shared -o "$WINE_SHIM_DLL" "$src" "$def" -ladvapi32 -static-libgcc
        fi
        sys32="$WINEPREFIX/drive_c/windows/system32"
        if [[ -d "$sys32" ]] && ! cmp -s "$WINE_SHIM_DLL" "$sys32/bcryptprimitives.dll"; then
            log "installing bcryptprimitives.dll stand-in into the prefix"
            cp "$WINE_SHIM_DLL" "$sys32/bcryptprimitives.dll"
        fi
        wine_prefix_ready || problems+=("Wine prefix $WINEPREFIX is not ready")
    fi
fi

if (( ${#problems[@]} )); then
    for p in "${problems[@]}"; do log "PROBLEM: $p"; done
    if (( best_effort )); then
        log "continuing (--best-effort): the Windows scripts will skip what they cannot do"
        exit 0
    fi
    exit 2
fi
log "ready: cross-build for $WIN_TARGET$( (( want_wine )) && echo " and Wine tests in $WINEPREFIX")"
