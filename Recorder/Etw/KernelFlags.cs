using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing.Parsers;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>A kernel keyword of a profile as TraceEvent, xperf/tracelog (-on / -eflag groups) and WPR spell it.</summary>
public sealed record KernelFlag(string Name, KernelTraceEventParser.Keywords Keyword, string XperfGroup, string WprKeyword);

/// <summary>A kernel event whose stack a profile asks for, and the keyword that must be on for it to fire.</summary>
public sealed record KernelStack(string Name, KernelTraceEventParser.Keywords Keyword, string StackwalkName, string WprStack);

/// <summary>
/// The one table that translates the profile's kernel words for every Windows tool, so the recorder, the scripts and
/// the WPR profile cannot drift apart. Names follow xperf's `-providers k` list and WPR's SystemProvider schema.
/// </summary>
public static class KernelFlags
{
    public static readonly IReadOnlyList<KernelFlag> Flags =
    [
        new("Process", KernelTraceEventParser.Keywords.Process, "PROC_THREAD", "ProcessThread"),
        new("Thread", KernelTraceEventParser.Keywords.Thread, "PROC_THREAD", "ProcessThread"),
        new("ImageLoad", KernelTraceEventParser.Keywords.ImageLoad, "LOADER", "Loader"),
        new("Profile", KernelTraceEventParser.Keywords.Profile, "PROFILE", "SampledProfile"),
        new("ContextSwitch", KernelTraceEventParser.Keywords.ContextSwitch, "CSWITCH", "CSwitch"),
        // ReadyThread events come from the dispatcher keyword; WPR names the keyword after the event.
        new("Dispatcher", KernelTraceEventParser.Keywords.Dispatcher, "DISPATCHER", "ReadyThread"),
    ];

    public static readonly IReadOnlyList<KernelStack> Stacks =
    [
        new("Profile", KernelTraceEventParser.Keywords.Profile, "Profile", "SampledProfile"),
        new("ContextSwitch", KernelTraceEventParser.Keywords.ContextSwitch, "CSwitch", "CSwitch"),
        new("ReadyThread", KernelTraceEventParser.Keywords.Dispatcher, "ReadyThread", "ReadyThread"),
    ];

    public static KernelFlag Flag(string name) =>
        Flags.FirstOrDefault(f => f.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
        ?? throw new UsageException($"kernel keyword '{name}' is not known; use one of {string.Join(", ", Flags.Select(f => f.Name))}");

    public static KernelStack Stack(string name) =>
        Stacks.FirstOrDefault(s => s.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
        ?? throw new UsageException($"kernel stack '{name}' is not known; use one of {string.Join(", ", Stacks.Select(s => s.Name))}");

    /// <summary>Distinct values in first-seen order: Process and Thread share one xperf group and one WPR keyword.</summary>
    public static IReadOnlyList<string> Distinct(IEnumerable<string> values) => values.Distinct(StringComparer.Ordinal).ToList();
}
