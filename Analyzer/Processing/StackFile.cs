using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// The stack keywords' file beside a main trace recorded without stacks (<see cref="TraceFolderLayout.StacksTrace"/>,
/// docs/recorder.md#stacks-only-where-read): the runtime's lock waits, each start with its stack (who wanted the
/// lock). Read whole before the pass, in time order; its times are raw clock values, as the trace's are.
/// </summary>
internal sealed class StackFile
{
    /// <summary>A lock wait starting (with its stack's return addresses, leaf first) or ending.</summary>
    public readonly record struct LockWait(long Qpc, int ThreadId, bool Start, ulong[] LeafFirst);

    public required IReadOnlyList<LockWait> LockWaits { get; init; }
    /// <summary>Why the file did not read to its end, if it did not.</summary>
    public IReadOnlyList<string> Warnings { get; init; } = [];

    /// <summary>Null when the recording has no stacks file (older recordings, other profiles, runtimes that need a stack on every event).</summary>
    public static StackFile? Read(TraceInput input)
    {
        if (input.StacksPath is not { } path) return null;
        var waits = new List<LockWait>();
        var warnings = new List<string>();
        var scratch = new List<ulong>();
        try
        {
            using var source = FileReads.Events(path);
            source.Clr.ContentionStart += e => waits.Add(new LockWait(Qpc(e), e.ThreadID, Start: true,
                EventStackAddresses.Available ? EventStackAddresses.Of(e, scratch).ToArray() : []));
            source.Clr.ContentionStop += e => waits.Add(new LockWait(Qpc(e), e.ThreadID, Start: false, []));
            source.Process();
        }
        catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.TraceEvent) || ex is IOException)
        {
            warnings.Add($"{Path.GetFileName(path)}: read up to a fault ({ReaderFault.Describe(ex)}): lock waits after it are not counted");
        }
        // Stable: a wait's start and stop at the same tick keep their order.
        return new StackFile { LockWaits = [.. waits.OrderBy(w => w.Qpc)], Warnings = warnings };
    }

#pragma warning disable CS0618 // "discouraged": the raw clock value is what puts two files of one process on one time line
    private static long Qpc(TraceEvent e) => e.TimeStampQPC;
#pragma warning restore CS0618
}
