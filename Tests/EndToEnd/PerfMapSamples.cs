using System.Globalization;
using System.IO.Compression;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The raw material of the perf-map truths (<see cref="PerfMapReflectionTruth"/>, <see cref="PerfMapTierTruth"/>), read
/// without the analyzer: run windows from the raw RunStart/RunBegin/RunEnd events, GC pauses from the raw
/// SuspendEE/RestartEE events (QPC, which on Linux is CLOCK_MONOTONIC like perf's clock), and perf script's samples
/// with the frames as perf named them itself.
/// </summary>
public static class PerfMapSamples
{
    public sealed record Window(string Serializer, string Operation, int Tid, long BeginNs, long EndNs);

    /// <summary>The measured runs' windows (RunBegin to RunEnd on the worker thread) and the GC pauses, in QPC nanoseconds.</summary>
    /// <summary>The serializer name of BenchmarkDotNet's iterations (one benchmark a trace).</summary>
    public const string BdnCase = "BenchmarkDotNet";

    public static (List<Window> Windows, List<(long Start, long End)> Pauses) MeasuredWindows(string nettrace)
    {
#pragma warning disable CS0618 // "discouraged": the raw QPC is CLOCK_MONOTONIC on Linux, perf's clock, with no conversion of ours
        var windows = new List<Window>();
        var pauses = new List<(long, long)>();
        var open = new Dictionary<int, (string Serializer, string Operation, bool Warmup, long BeginNs)>();
        var suspended = new Dictionary<int, long>();
        var bdnOpen = new Dictionary<int, long>();
        using var source = new EventPipeEventSource(nettrace);
        source.Clr.GCSuspendEEStart += e =>
        {
            if (e.Reason is GCSuspendEEReason.SuspendForGC or GCSuspendEEReason.SuspendForGCPrep) suspended[e.ThreadID] = e.TimeStampQPC;
        };
        source.Clr.GCRestartEEStop += e =>
        {
            if (suspended.Remove(e.ThreadID, out var start)) pauses.Add((start, e.TimeStampQPC));
        };
        source.Dynamic.All += e =>
        {
            // BenchmarkDotNet's measured iterations (WorkloadActual start and stop), as one case: a trace holds one benchmark.
            if (e.ProviderName == "BenchmarkDotNet.EngineEventSource")
            {
                if ((int)e.ID == 15) bdnOpen[e.ThreadID] = e.TimeStampQPC;
                else if ((int)e.ID == 16 && bdnOpen.Remove(e.ThreadID, out var began))
                    windows.Add(new Window(BdnCase, "WorkloadActual", e.ThreadID, began, e.TimeStampQPC));
                return;
            }
            if (e.ProviderName != "EtwSerializerProfiler-Runs") return;
            switch ((int)e.ID)
            {
                case 1: // RunStart, on the worker
                    open[e.ThreadID] = ((string)e.PayloadByName("Serializer"), (string)e.PayloadByName("Operation"), (bool)e.PayloadByName("Warmup"), 0);
                    break;
                case 3: // RunBegin: right before the Stopwatch starts
                    if (open.TryGetValue(e.ThreadID, out var r)) open[e.ThreadID] = r with { BeginNs = e.TimeStampQPC };
                    break;
                case 4: // RunEnd: right after it stops
                    if (open.Remove(e.ThreadID, out var run) && !run.Warmup && run.BeginNs > 0)
                        windows.Add(new Window(run.Serializer, run.Operation, e.ThreadID, run.BeginNs, e.TimeStampQPC));
                    break;
            }
        };
        source.Process();
#pragma warning restore CS0618
        return (windows, pauses);
    }

    /// <summary>perf script's cpu-clock samples: "comm pid/tid seconds.nanoseconds: cpu-clock...", then one frame a line, "addr symbol (dso)".</summary>
    public static IEnumerable<(int Tid, long TimeNs, List<string> Frames)> Samples(string perfScriptGz)
    {
        using var reader = new StreamReader(new GZipStream(File.OpenRead(perfScriptGz), CompressionMode.Decompress));
        (int Tid, long TimeNs)? sample = null;
        var frames = new List<string>();
        while (reader.ReadLine() is { } line)
        {
            if (line.Length == 0)
            {
                if (sample is { } s) yield return (s.Tid, s.TimeNs, frames);
                sample = null;
                frames = [];
                continue;
            }
            if (line[0] is '\t' or ' ')
            {
                if (sample is not null) frames.Add(line.Trim());
                continue;
            }
            var cpuClock = line.IndexOf(": cpu-clock", StringComparison.Ordinal);
            if (cpuClock < 0) continue;
            // The comm may contain spaces: the pid/tid and time are the last two fields before ": cpu-clock".
            var fields = line[..cpuClock].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            var tid = int.Parse(fields[^2][(fields[^2].IndexOf('/') + 1)..], CultureInfo.InvariantCulture);
            var time = fields[^1].Split('.');
            sample = (tid, long.Parse(time[0], CultureInfo.InvariantCulture) * 1_000_000_000 + long.Parse(time[1].PadRight(9, '0')[..9], CultureInfo.InvariantCulture));
        }
        if (sample is { } last) yield return (last.Tid, last.TimeNs, frames);
    }
}
