using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Workloads;

/// <summary>Register-only work (xorshift), shaped like the known-answer parts: a method with a callee keeps its frame under frame-pointer unwinding.</summary>
public static class Arithmetic
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Loop(int rounds, long x)
    {
        for (var i = 0; i < rounds; i++) x = Step(x);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Step(long x)
    {
        for (var i = 0; i < 64; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        return x;
    }
}
