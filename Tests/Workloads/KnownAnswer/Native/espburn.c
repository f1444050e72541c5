/* The native half of the known-answer workload for native symbols (NativeWorkload.cs, Tests/EndToEnd/NativeSymbolsTests.cs).
   Compiled at test time into a shared library with a build id, its debug info split off and the library stripped, so
   perf can name alpha_spin and beta_spin only from the split debug file. Both are static (absent from the dynamic
   symbol table a stripped library keeps) and not inlined; esp_burn is the one export, called through P/Invoke. */
#include <stdint.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t alpha_spin(uint64_t n)
{
    uint64_t x = 1;
    for (uint64_t i = 0; i < n; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

__attribute__((noinline)) static uint64_t beta_spin(uint64_t n)
{
    uint64_t x = 7;
    for (uint64_t i = 0; i < n; i++) x ^= (x << 13) ^ (x >> 7) ^ i;
    return x;
}

uint64_t esp_burn(int which, uint64_t n)
{
    uint64_t r = which == 0 ? alpha_spin(n) : beta_spin(n);
    sink = r;
    return r;
}
