#!/usr/bin/env bash
# Builds the Windows tournament brain and writes the Gomocup submission ZIP:
#   target/gomocup/wuzi.zip
#     pbrain-wuzi64.exe   x86_64-pc-windows-gnu, target-cpu x86-64-v3 (AVX2, no AVX-512),
#                         C runtime linked statically: needs only DLLs Windows ships
#     wuzi.conf           the default configuration (config/wuzi.conf), beside the
#                         executable where the brain looks for it
# Checks before zipping: the executable imports only Windows system DLLs, contains no
# AVX-512 instruction, is a 64-bit console program; the ZIP stays under Gomocup's 8 MB.
#
# Usage: scripts/package-gomocup.sh [--strict]
#   Without the Windows toolchain it prints why and exits 0 (skip) unless --strict
#   (then exit 2). Install it with scripts/setup-windows-toolchain.sh.
# Env: WUZI_ZIP=path (output, default target/gomocup/wuzi.zip)
#      WUZI_TARGET_CPU=x86-64-v2 (default x86-64-v3: AVX2) for CPUs without AVX2
set -euo pipefail
# shellcheck source=scripts/windows-common.sh
source "$(dirname "$0")/windows-common.sh"

strict=0
for arg in "$@"; do
    case "$arg" in
        --strict) strict=1 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) die "unknown option: $arg (see --help)" ;;
    esac
done

if ! have_windows_toolchain; then
    explain_windows_toolchain
    if (( strict )); then log "ERROR: cannot build the Windows brain"; exit 2; fi
    log "SKIPPED: no Windows cross-toolchain on this machine, no package written"
    exit 0
fi

cd "$REPO_ROOT"
out_dir="$REPO_ROOT/target/gomocup"
zip_path="${WUZI_ZIP:-$out_dir/wuzi.zip}"
stage="$out_dir/stage"
limit_bytes=8000000   # Gomocup: "max 8 MB"; 8,000,000 is below both readings of MB

# Executables to ship: name and target CPU. x86-64-v3 = AVX, AVX2, BMI1/2, FMA, F16C,
# LZCNT, MOVBE: Gomocup's ceiling is AVX2, and every AVX2 CPU has the rest.
# Measured (Linux, LTO builds): board make+undo runs at the same speed for x86-64, -v2 and
# -v3; `pbrain-wuzi bench` (same signature) took 1.49 s (v3) vs 1.64 s (v2) at best of 5 on
# a loaded machine: at most ~10 %, so one executable, at the highest level Gomocup allows.
# WUZI_TARGET_CPU=x86-64-v2 builds one for CPUs without AVX2 (old Piskvork machines).
exe_name=pbrain-wuzi64.exe
target_cpu="${WUZI_TARGET_CPU:-x86-64-v3}"
case "$target_cpu" in
    x86-64|x86-64-v2|x86-64-v3) ;;
    *) die "WUZI_TARGET_CPU=$target_cpu: use x86-64, x86-64-v2 or x86-64-v3 (Gomocup: up to AVX2)" ;;
esac

log "building $exe_name ($WIN_TARGET, target-cpu=$target_cpu)"
# The same source gives the same bytes wherever and however often it is built
# (scripts/windows-repro-check.sh builds twice in two folders and compares):
#   --no-insert-timestamp  no build time in the PE header;
#   strip=symbols          no COFF symbol table: it names the folders rustc makes for
#                          each build (a random name each time) under the build's path;
#   --remap-path-prefix    the checkout's and cargo home's paths, which the dependencies'
#                          panic messages carry, replaced by fixed names.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
rustflags=(-C target-feature=+crt-static -C "target-cpu=$target_cpu"
           -C link-arg=-Wl,--no-insert-timestamp -C strip=symbols
           "--remap-path-prefix=$REPO_ROOT=wuzi" "--remap-path-prefix=$cargo_home=cargo")
# The encoded form (fields split by 0x1f) lets the paths hold spaces. It replaces
# RUSTFLAGS and .cargo/config.toml's list for the target, so it spells out all of it.
CARGO_ENCODED_RUSTFLAGS="$(IFS=$'\x1f'; echo "${rustflags[*]}")" \
    cargo build --release --locked --quiet --target "$WIN_TARGET" --bin pbrain-wuzi
exe="$REPO_ROOT/target/$WIN_TARGET/release/pbrain-wuzi.exe"
[[ -f "$exe" ]] || die "build produced no $exe"

# --- checks on the executable -------------------------------------------------------------
headers="$("$WIN_OBJDUMP" -p "$exe")"
grep -q 'file format pei-x86-64' <<<"$headers" || die "$exe is not a 64-bit PE executable"
grep -Eq '^Subsystem[[:space:]]+0+3[[:space:]]' <<<"$headers" \
    || die "$exe is not a console (CUI) program: managers talk to it through stdin/stdout"
dlls="$(sed -n 's/^[[:space:]]*DLL Name:[[:space:]]*//p' <<<"$headers" | sort -fu)"
log "imported DLLs: $(tr '\n' ' ' <<<"$dlls")"
while read -r dll; do
    [[ -z "$dll" ]] && continue
    case "${dll,,}" in
        # Shipped with every Windows 10/11 (bcryptprimitives: ProcessPrng, used by Rust std).
        kernel32.dll|kernelbase.dll|ntdll.dll|msvcrt.dll|advapi32.dll|bcrypt.dll|\
        bcryptprimitives.dll|userenv.dll|ws2_32.dll|api-ms-win-*.dll) ;;
        *) die "$exe imports $dll, which Windows does not ship (static linking broken?)" ;;
    esac
done <<<"$dlls"
disasm="$("$WIN_OBJDUMP" -d --no-show-raw-insn "$exe")"
avx512=$(grep -cE '%zmm[0-9]|%k[0-7]\b' <<<"$disasm" || true)
ymm=$(grep -c '%ymm' <<<"$disasm" || true)
(( avx512 == 0 )) || die "$exe contains $avx512 AVX-512 instructions (Gomocup allows up to AVX2)"
log "instruction check: 0 AVX-512 (zmm/mask register) instructions, $ymm using ymm (AVX/AVX2)"

# --- stage and zip --------------------------------------------------------------------------
rm -rf "$stage"
mkdir -p "$stage"
cp "$exe" "$stage/$exe_name"
# Files the brain reads at run time, as "repository path:path in the ZIP". The brain looks
# for wuzi.conf beside its executable (src/config.rs), so the default configuration goes to
# the root, where an operator can edit it (the same defaults are also compiled in).
# openings/ holds the match runner's opening lists, not a book the brain reads: not shipped.
# A runtime file added later (an opening book, weights) must be listed here.
runtime_files=("config/wuzi.conf:wuzi.conf")
for entry in "${runtime_files[@]}"; do
    src="$REPO_ROOT/${entry%%:*}" dst="$stage/${entry#*:}"
    if [[ -f "$src" ]]; then
        mkdir -p "$(dirname "$dst")"
        cp "$src" "$dst"
    else
        log "note: ${entry%%:*} not in the repository; not shipped"
    fi
done
mkdir -p "$(dirname "$zip_path")"
rm -f "$zip_path"
# Python's zipfile rather than zip(1): always there, and the archive is reproducible
# (fixed timestamps, sorted entries).
python3 - "$stage" "$zip_path" <<'PY'
import os, sys, zipfile
stage, out = sys.argv[1], sys.argv[2]
entries = []
for root, dirs, files in os.walk(stage):
    dirs.sort()
    for f in sorted(files):
        full = os.path.join(root, f)
        entries.append((os.path.relpath(full, stage).replace(os.sep, "/"), full))
entries.sort(key=lambda e: (e[0].count("/"), e[0]))   # executables (at the root) first
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for name, full in entries:
        info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o755 if name.endswith(".exe") else 0o644) << 16
        with open(full, "rb") as fh:
            z.writestr(info, fh.read(), compresslevel=9)
PY

python3 - "$zip_path" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    print(f"{'size':>10}  {'packed':>10}  name")
    for i in z.infolist():
        print(f"{i.file_size:>10}  {i.compress_size:>10}  {i.filename}")
PY
size=$(stat -c %s "$zip_path")
python3 -c 'import sys,zipfile; n=[i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist()]; sys.exit(0 if any(x.startswith("pbrain-") and "/" not in x for x in n) else 1)' "$zip_path" \
    || die "no pbrain-* executable at the root of $zip_path"
(( size <= limit_bytes )) || die "$zip_path is $size bytes, over Gomocup's 8 MB limit"
echo "$zip_path: $size bytes ($(( size * 100 / limit_bytes ))% of the 8 MB limit)"
