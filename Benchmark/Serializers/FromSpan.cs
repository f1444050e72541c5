using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// Guid and decimal from spans. .NET 10 has span constructors (no copy, inlined away); .NET Framework has only the
/// array ones, so its build pays one 16-byte copy. The only #if of the serializers, kept to this file.
/// </summary>
internal static class FromSpan
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Guid Guid(ReadOnlySpan<byte> bytes) =>
#if NETFRAMEWORK
        new(bytes.ToArray());
#else
        new(bytes);
#endif

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static decimal Decimal(ReadOnlySpan<int> bits) =>
#if NETFRAMEWORK
        new(bits.ToArray());
#else
        new(bits);
#endif
}
