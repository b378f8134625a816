/* Test-only stand-in for Windows' bcryptprimitives.dll, for Wine 8.0 (Debian bookworm),
 * which does not have it. Rust's std (>= 1.78) on Windows gets random bytes from
 * ProcessPrng in that DLL; without it a Rust .exe fails to load under that Wine.
 * Real Windows 10/11 ship the DLL: this file is never part of the Gomocup package.
 * Built by scripts/setup-windows-toolchain.sh into the private Wine prefix under target/. */
#include <windows.h>
#include <ntsecapi.h> /* RtlGenRandom (SystemFunction036 in advapi32) */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE out, SIZE_T len)
{
    /* RtlGenRandom takes a ULONG length: feed it in chunks. */
    const SIZE_T chunk = 1u << 28;
    while (len != 0) {
        ULONG n = (ULONG)(len < chunk ? len : chunk);
        if (!RtlGenRandom(out, n))
            return FALSE;
        out += n;
        len -= n;
    }
    return TRUE;
}
