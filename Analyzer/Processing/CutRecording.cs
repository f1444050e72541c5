using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// A recording that ended abruptly (kill -9 of esp record, the OOM killer, power loss): the recorder writes
/// manifest.json last, so a trace folder without one, holding what only esp record leaves (kernel.perf.data) or a
/// trace that ends abruptly, was cut. What can still be known is said in one line: where it was cut.
/// </summary>
internal static class CutRecording
{
    /// <returns>The warning, or null when the recording was not cut.</returns>
    public static string? Warning(TraceInput input, AnalysisDraft analysis)
    {
        if (input.ManifestPath is not null || input.Format != TraceFormat.NetTrace) return null;
        if (input.KernelDataPath is null && !analysis.Trace.Truncated) return null;
        var lastRun = analysis.Runs.Where(r => r.EndMs > r.StartMs).MaxBy(r => r.EndMs);
        var where = lastRun is null
            ? "before any run completed"
            : $"after {Describe(lastRun)} ({analysis.Runs.Count(r => !r.IsWarmup):N0} measured and {analysis.Runs.Count(r => r.IsWarmup):N0} warm-up runs before it)";
        // The recorder converts the kernel session last, after the process has ended: its half-written text says it was there.
        var converting = File.Exists(Path.Combine(Path.GetDirectoryName(Path.GetFullPath(input.TracePath))!, TraceFolderLayout.KernelScript + ".partial"))
            ? $"; esp record was converting the kernel session when it ended ({TraceFolderLayout.KernelScript}.partial left)" : "";
        return $"the recording was cut: no {TraceFolderLayout.Manifest} (the recorder did not finish); the trace ends at {analysis.Trace.DurationMs / 1000:F1} s, {where}{converting}";
    }

    private const string Unresolved = "methods jitted before tracing or never unloaded may be unresolved";

    /// <summary>The no-rundown warning for a recording known to be cut (the manifest's cut or status, or no manifest); null when nothing is known.</summary>
    public static string? NoRundownWarning(TraceManifest? manifest, bool recorderKilled)
    {
        if (manifest?.Cut is { } cut) return $"no rundown: the recording was cut {cut.AtSeconds:F1} s after it started ({cut.Reason}), before the runtime could write it: {Unresolved}";
        if (manifest?.Status == RecordingStatus.ChildCrashed)
            return $"no rundown: the recorded process {UnixExitStatus.InWords(manifest.ChildExitCode ?? -1)} (manifest status {RecordingStatus.ChildCrashed}), before its runtime could write it: {Unresolved}";
        if (recorderKilled) return $"no rundown: the recording was cut (no {TraceFolderLayout.Manifest}: the recorder did not finish), before the runtime could write it: {Unresolved}";
        return null;
    }

    private static string Describe(RunDraft run) =>
        $"{run.Key.Serializer} {run.Key.Operation} N={run.Key.Objects} run {run.Key.Run}{(run.IsWarmup ? " (warm-up)" : "")}, which ended at {run.EndMs / 1000:F1} s";
}
