/* Wine 8 has no bcryptprimitives.dll; Rust's standard library (in pydantic-core, which the MCP SDK loads) draws its
 * random bytes from its ProcessPrng. This stand-in, placed beside python.exe, answers from RtlGenRandom. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length) {
        ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        length -= n;
    }
    return TRUE;
}
