using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// The exception sessions' files beside a recording's trace (docs/recorder.md#exceptions-without-stacks): every throw
/// without a stack (<see cref="TraceFolderLayout.ExceptionsTrace"/>), and the throws of the short sampling windows with
/// theirs (<see cref="TraceFolderLayout.ExceptionStacksPattern"/>). Read whole before the pass, in time order. Their
/// times are the process's monotonic clock, as the trace's are: raw QPC values, comparable across the files.
/// </summary>
internal sealed class ExceptionFiles
{
    // Records as classes: the lists, sorts and the distinct marks below then run the framework's precompiled code
    // for objects, where structs ran tier-0 JIT code in the ReadyToRun build.

    /// <summary>A throw: its raw clock value, thread and exception type.</summary>
    public sealed record Throw(long Qpc, int ThreadId, string Type);

    /// <summary>An exception's dispatch starting (its throw) or ending (Exception/Stop), for the native time it spans.</summary>
    public sealed record DispatchMark(long Qpc, int ThreadId, bool Start);

    /// <summary>A sampled throw, with its stack's return addresses, leaf first.</summary>
    public sealed record SampledThrow(long Qpc, int ThreadId, string Type, ulong[] LeafFirst);

    public required IReadOnlyList<Throw> Throws { get; init; }
    public required IReadOnlyList<SampledThrow> Samples { get; init; }
    /// <summary>Throws and dispatch ends, in time order (ends only when the file has them: level Informational).</summary>
    public IReadOnlyList<DispatchMark> Dispatch { get; init; } = [];
    /// <summary>
    /// The stackless session stopped at a high throw rate (the manifest's exceptionsStoppedAtSeconds), so later throws
    /// are counted only where runs count their own (RunStop version 2).
    /// </summary>
    public bool StoppedEarly { get; init; }

    /// <summary>Sampling windows read (files with stacks).</summary>
    public int Windows { get; init; }
    /// <summary>Why a file did not read to its end, if one did not.</summary>
    public IReadOnlyList<string> Warnings { get; init; } = [];

    /// <summary>Null when the recording has no stackless exceptions file (older recordings, other profiles).</summary>
    /// <param name="stoppedEarly">Whether the recorder stopped the stackless session at a high throw rate (manifest.json), asked once the files are read.</param>
    public static ExceptionFiles? Read(TraceInput input, Func<bool>? stoppedEarly = null)
    {
        if (input.ExceptionsPath is not { } path) return null;
        var types = new Dictionary<string, string>(StringComparer.Ordinal);
        string Intern(string s) => types.TryGetValue(s, out var known) ? known : types[s] = s;
        var warnings = new List<string>();
        var throws = new List<Throw>();
        var dispatch = new List<DispatchMark>();
        var marks = new List<DispatchMark>();
        ReadFile(path, warnings, e =>
        {
            throws.Add(new Throw(Qpc(e), e.ThreadID, Intern(e.ExceptionType)));
            marks.Add(new DispatchMark(Qpc(e), e.ThreadID, Start: true));
        }, e => marks.Add(new DispatchMark(Qpc(e), e.ThreadID, Start: false)));
        dispatch.AddRange(Ended(marks));
        var samples = new List<SampledThrow>();
        var scratch = new List<ulong>();
        // The windows' throws and ends mark dispatch spans too: after a stackless session stopped for its rate, theirs
        // are the only ones (the same throw in both files is one mark).
        foreach (var file in input.ExceptionStackPaths)
        {
            marks.Clear();
            ReadFile(file, warnings, e =>
            {
                samples.Add(new SampledThrow(Qpc(e), e.ThreadID, Intern(e.ExceptionType), EventStackAddresses.Available ? EventStackAddresses.Of(e, scratch).ToArray() : []));
                marks.Add(new DispatchMark(Qpc(e), e.ThreadID, Start: true));
            }, e => marks.Add(new DispatchMark(Qpc(e), e.ThreadID, Start: false)));
            dispatch.AddRange(Ended(marks));
        }
        throws.Sort((a, b) => a.Qpc.CompareTo(b.Qpc));
        samples.Sort((a, b) => a.Qpc.CompareTo(b.Qpc));
        // Stable: a throw and its end at the same tick keep their order.
        var ordered = dispatch.Distinct().OrderBy(m => m.Qpc).ToList();
        return new ExceptionFiles { Throws = throws, Samples = samples, Dispatch = ordered, Windows = input.ExceptionStackPaths.Count, Warnings = warnings, StoppedEarly = stoppedEarly?.Invoke() == true };
    }

    /// <summary>
    /// One file's marks, less each thread's throws that no end follows in the same file: its session stopped during
    /// that dispatch. Left in, such a throw's span stayed open until the next end in any file: after the stackless
    /// session stopped for its rate, the next window's, up to 2 s on. Every native sample of the thread in between
    /// went to exceptions: custom-attribute lookups read 20% against the clock's 45% (issue 59, at load 20).
    /// </summary>
    internal static IEnumerable<DispatchMark> Ended(IReadOnlyList<DispatchMark> marks)
    {
        var lastEnd = new Dictionary<int, int>();
        for (var i = 0; i < marks.Count; i++)
            if (!marks[i].Start) lastEnd[marks[i].ThreadId] = i;
        for (var i = 0; i < marks.Count; i++)
            if (!marks[i].Start || (lastEnd.TryGetValue(marks[i].ThreadId, out var end) && end > i))
                yield return marks[i];
    }

#pragma warning disable CS0618 // "discouraged": the raw clock value is what puts two files of one process on one time line
    private static long Qpc(TraceEvent e) => e.TimeStampQPC;
#pragma warning restore CS0618

    private static void ReadFile(string path, List<string> warnings, Action<Microsoft.Diagnostics.Tracing.Parsers.Clr.ExceptionTraceData> onThrow, Action<TraceEvent>? onStop = null)
    {
        try
        {
            using var source = FileReads.Events(path);
            source.Clr.ExceptionStart += e => onThrow(e);
            if (onStop is not null) source.Clr.ExceptionStop += e => onStop(e);
            source.Process();
        }
        catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.TraceEvent) || ex is IOException)
        {
            warnings.Add($"{Path.GetFileName(path)}: read up to a fault ({ReaderFault.Describe(ex)}): exceptions after it are not counted");
        }
    }
}
