using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// Tells "this serializer cannot run in this process" (reported as unsupported, like BinaryFormatter on .NET 9+)
/// from an ordinary error. A configuration without dynamic code is a legitimate thing to measure, and a serializer
/// that needs Reflection.Emit simply cannot take part in it.
/// </summary>
public static class NotRunnable
{
    /// <summary>
    /// The reason, or null for an ordinary error. Only failures before the serializer's first measured run
    /// qualify: the runtime's PlatformNotSupportedException however wrapped (e.g. Reflection.Emit with dynamic code
    /// off), or any failure while dynamic code is off, since the library's reflection-only fallback is then the
    /// code that failed (XmlSerializer's reflection writer throws on BookShelf, for one).
    /// </summary>
    public static string? Reason(Exception ex, bool anyMeasured)
    {
        if (anyMeasured || ex is OperationCanceledException) return null;
        var innermost = ex;
        for (Exception? e = ex; e is not null; e = e.InnerException)
        {
            if (e is PlatformNotSupportedException p) return $"not supported in this configuration: {p.Message}";
            innermost = e;
        }
        return RuntimeFeature.IsDynamicCodeSupported
            ? null
            : $"fails with dynamic code disabled (reflection-only fallback): {ex.GetType().Name}: {ex.Message}{(innermost == ex ? "" : $" ({innermost.GetType().Name}: {innermost.Message})")}";
    }
}
