using System.Text.RegularExpressions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// Reflection and Activator shares per serializer and operation computed without the analyzer: frames as perf named
/// them itself (JIT code from the runtime's /tmp/perf-PID.map, which the child writes with DOTNET_PerfMapEnabled=3: the map alone, no jitdump),
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

    /// <returns>Per (serializer, operation) over the measured runs: samples outside GC, reflection-owned ones, and those whose owner perf named with nothing unnamed below it.</returns>
    public static IReadOnlyList<Share> Compute(string traceFolder)
    {
        var (windows, pauses) = PerfMapSamples.MeasuredWindows(Path.Combine(traceFolder, "trace.nettrace"));
        var counts = new Dictionary<(string, string), (int Samples, int Reflection, int Named)>();
        foreach (var (tid, timeNs, frames) in PerfMapSamples.Samples(Path.Combine(traceFolder, "kernel.perf-script.txt.gz")))
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
        var frames = perfFramesLeafFirst.ToList();
        for (var i = 0; i < frames.Count; i++)
        {
            var m = PerfMapName().Match(frames[i]);
            if (!m.Success)
            {
                // native, kernel, stubs and code perf could not name
                unnamed |= frames[i].EndsWith("System.Private.CoreLib.dll)", StringComparison.Ordinal);
                continue;
            }
            var name = m.Groups["name"].Value;
            if (name.Contains("IL_STUB", StringComparison.Ordinal)) continue;
            if (IsInvoke(name)) return (true, unnamed);
            if (m.Groups["asm"].Value != "System.Private.CoreLib") return (false, unnamed);
            if (s_reflectionPrefixes.Any(p => name.StartsWith(p, StringComparison.Ordinal))) return (true, unnamed);
            // The rule's exception: a core library method that reflection's invoke machinery called directly is the
            // invoked method, and owns the sample (seen: Number.UInt32ToDecStr right under XmlSerializer's
            // InvokeStub_...Write4_BookShelf, the generated writer's own frames lost to frame-pointer unwinding).
            if (!IsRuntimeHelper(name) && CallerIsInvoke(frames, i)) return (false, unnamed);
        }
        return (null, unnamed);
    }

    /// <summary>An emitted invoke stub, or the interpreted invoke where there is none: frames whose callee is the invoked method.</summary>
    private static bool IsInvoke(string name) =>
        name.Contains("InvokeStub_", StringComparison.Ordinal)
        || name.StartsWith("System.Reflection.MethodBaseInvoker::InterpretedInvoke", StringComparison.Ordinal)
        || name.StartsWith("System.RuntimeMethodHandle::InvokeMethod", StringComparison.Ordinal);

    /// <summary>The JIT's helpers, which run on their caller's behalf and are never the invoked method.</summary>
    private static bool IsRuntimeHelper(string name) =>
        (name.StartsWith("System.Runtime.CompilerServices.", StringComparison.Ordinal) && name.Contains("Helpers::", StringComparison.Ordinal))
        || name.StartsWith("System.Buffer::", StringComparison.Ordinal) || name.StartsWith("System.SpanHelpers::", StringComparison.Ordinal);

    /// <summary>The frame's caller, past the JIT's helpers, is an invoke frame.</summary>
    private static bool CallerIsInvoke(List<string> frames, int i)
    {
        for (var c = i + 1; c < frames.Count; c++)
        {
            var m = PerfMapName().Match(frames[c]);
            if (!m.Success) return false;
            var name = m.Groups["name"].Value;
            if (IsRuntimeHelper(name)) continue;
            return IsInvoke(name);
        }
        return false;
    }
}
