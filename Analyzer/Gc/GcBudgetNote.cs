using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Gc;

/// <summary>
/// The GC's gen0 budget the recorded process ran with, as its results.json says. The runtime sizes it from the CPU's
/// cache: a machine with a 300 MiB L3 collects several times less often than one with 32 MiB, so GC counts, pauses
/// and the gc-bound finding depend on it.
/// </summary>
internal static class GcBudgetNote
{
    public static string? Line(TraceAnalysis analysis)
    {
        if (analysis.InProcess is not { GcGen0BudgetBytes: { } bytes } results) return null;
        var how = results.GcGen0SizeSetting is { } set ? $"pinned by DOTNET_GCgen0size={set}" : "sized from the CPU's cache; DOTNET_GCgen0size pins it";
        return $"GC gen0 budget: at most {bytes / 1048576.0:0.#} MiB ({how}); GC counts per run depend on it";
    }
}
