using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>
/// The legend of a table with --threads runs: what "per operation" means when a run's calls are spread over a crew of
/// threads (docs/analyzer.md, "Concurrent runs"). One sentence, said once per table that has such rows.
/// </summary>
internal static class ConcurrentRunsNote
{
    /// <summary>Null when no row of the operation had a crew.</summary>
    public static string? Of(IEnumerable<CaseSummary> rows)
    {
        var crews = rows.Where(s => s.CallingThreads > 1).Select(s => s.CallingThreads).Distinct().Order().ToList();
        if (crews.Count == 0) return null;
        var t = string.Join("/", crews.Select(c => Fmt.Int(c)));
        return $"--threads {t}: each run's calls ran on {t} worker threads at once; Mean/Min ms and GC pause are the window per operation of one worker "
            + $"(as the benchmark's Mean ms: {t} calls at once), every other figure (CPU, tags, off-CPU, GCs, allocations, events) is per call: "
            + $"the workers' total inside the window / ({t} x Ops), held to their summed thread CPU clocks";
    }
}
