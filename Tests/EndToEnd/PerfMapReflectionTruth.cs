using System.Globalization;
using System.IO.Compression;
using System.Text.RegularExpressions;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// Reflection and Activator shares per serializer and operation computed without the analyzer: frames as perf named
/// them itself (JIT code from the runtime's /tmp/perf-PID.map, which the child writes with DOTNET_PerfMapEnabled=1),
/// run windows from the raw RunStart/RunBegin/RunEnd events and GC pauses from the raw SuspendEE/RestartEE events
/// (QPC, which on Linux is CLOCK_MONOTONIC like perf's clock), and a deliberately simple classifier: namespace prefixes
/// on the frame's name, the sample's owner the first named managed frame from the leaf that is reflection or outside the
/// core library. It shares nothing with the analyzer but the rule it checks (docs/analyzer.md, "Attribution").
/// </summary>
public static partial class PerfMapReflectionTruth
{
    /// <summary>The reflection surface by name prefix, within the core library (perf map names: Namespace.Type::Method).</summary>
    private static readonly string[] s_reflectionPrefixes =
    [
        "System.Reflection.", "System.RuntimeType", "System.Type::", "System.RuntimeMethodHandle", "System.RuntimeFieldHandle",
        "System.RuntimeTypeHandle", "System.ModuleHandle", "System.Signature", "System.Attribute::", "System.Activator",
        "System.Runtime.CompilerServices.RuntimeHelpers::GetUninitializedObject", "System.Nullable::GetUnderlyingType",
    ];

    /// <summary>perf map entries: "[return type] [Assembly] Namespace.Type::Method(args)[Tier]"; the owning assembly is the bracket followed by a space.</summary>
    [GeneratedRegex(@"\[(?<asm>[^\]\s]+)\] (?<name>[^\s(]+)\(")]
    private static partial Regex PerfMapName();

    public sealed record Share(string Serializer, string Operation, int Samples, int Reflection, int Named)
    {
        public double Value => Samples == 0 ? 0 : (double)Reflection / Samples;
    }

    private sealed record Window(string Serializer, string Operation, int Tid, long BeginNs, long EndNs);

    /// <returns>Per (serializer, operation) over the measured runs: samples outside GC, reflection-owned ones, and those whose owner perf named with nothing unnamed below it.</returns>
    public static IReadOnlyList<Share> Compute(string traceFolder)
    {
        var (windows, pauses) = ReadTrace(Path.Combine(traceFolder, "trace.nettrace"));
        var counts = new Dictionary<(string, string), (int Samples, int Reflection, int Named)>();
        foreach (var (tid, timeNs, frames) in Samples(Path.Combine(traceFolder, "kernel.perf-script.txt.gz")))
        {
            var w = windows.FirstOrDefault(x => x.Tid == tid && x.BeginNs <= timeNs && timeNs < x.EndNs);
            if (w is null || pauses.Any(p => p.Start <= timeNs && timeNs < p.End)) continue;
            var key = (w.Serializer, w.Operation);
            var c = counts.GetValueOrDefault(key);
            var (owner, unnamedBelow) = Owner(frames);
            counts[key] = (c.Samples + 1, c.Reflection + (owner == true ? 1 : 0), c.Named + (owner is null || unnamedBelow ? 0 : 1));
        }
        return [.. counts.Select(kv => new Share(kv.Key.Item1, kv.Key.Item2, kv.Value.Samples, kv.Value.Reflection, kv.Value.Named))];
    }

    /// <returns>
    /// True when reflection owns the sample, false when other code does, null when no frame is named managed code; and
    /// whether a core library frame perf could not name (precompiled code is in no perf map) was passed on the way,
    /// which might have been reflection: such samples do not count as named.
    /// </returns>
    public static (bool? Owner, bool UnnamedBelow) Owner(IEnumerable<string> perfFramesLeafFirst)
    {
        var unnamed = false;
        foreach (var frame in perfFramesLeafFirst)
        {
            var m = PerfMapName().Match(frame);
            if (!m.Success)
            {
                // native, kernel, stubs and code perf could not name
                unnamed |= frame.EndsWith("System.Private.CoreLib.dll)", StringComparison.Ordinal);
                continue;
            }
            var name = m.Groups["name"].Value;
            if (name.Contains("IL_STUB", StringComparison.Ordinal)) continue;
            if (name.Contains("InvokeStub_", StringComparison.Ordinal)) return (true, unnamed);
            if (m.Groups["asm"].Value != "System.Private.CoreLib") return (false, unnamed);
            if (s_reflectionPrefixes.Any(p => name.StartsWith(p, StringComparison.Ordinal))) return (true, unnamed);
        }
        return (null, unnamed);
    }

    private static (List<Window> Windows, List<(long Start, long End)> Pauses) ReadTrace(string nettrace)
    {
#pragma warning disable CS0618 // "discouraged": the raw QPC is CLOCK_MONOTONIC on Linux, perf's clock, with no conversion of ours
        var windows = new List<Window>();
        var pauses = new List<(long, long)>();
        var open = new Dictionary<int, (string Serializer, string Operation, bool Warmup, long BeginNs)>();
        var suspended = new Dictionary<int, long>();
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
    private static IEnumerable<(int Tid, long TimeNs, List<string> Frames)> Samples(string perfScriptGz)
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
