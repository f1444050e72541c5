using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// The kernel session's records, taken chunk by chunk after the EventPipe pass (<see cref="KernelChunks"/>), each
/// chunk given to every stage that reads them and then dropped: the CPU charge (its samples), the precise on-CPU time
/// (switches), the off-CPU reasons, the other threads' CPU and the marker's windows; the session's counts are kept as it goes. Each stage
/// keeps its own state from chunk to chunk and nothing per record, so memory does not grow with the trace.
/// </summary>
internal static class KernelChunkPass
{
    /// <param name="charging">The charge of the kernel's samples; null when they are not the trace's CPU source.</param>
    public static KernelRead Read(KernelSession session, PassTimeline timeline, GcPauses pauses, StackTagFile? tags,
        SampleCharger.Charging? charging, SwitchCpuTime.Walk? switches, OffCpuClassifier? offCpu, KernelMarkerWindows? markers,
        OtherThreadsCpu? otherThreads = null)
    {
        var named = new PerfStacks.Named(tags);
        var cursor = pauses.Walk();
        var unnamed = new Dictionary<string, int>(StringComparer.Ordinal);
        int samples = 0, switchOuts = 0, wakings = 0;
        var switchIns = false;
        long? lastNs = null;
        foreach (var chunk in session.Chunks.Take())
        {
            lastNs = Later(lastNs, LastNs(chunk));
            var namer = session.NamerOf(chunk);
            samples += chunk.Samples.Count;
            switchOuts += chunk.SwitchOuts.Count;
            wakings += chunk.Wakings.Count;
            switchIns |= chunk.SwitchIns.Count > 0;
            CountUnnamedLeaves(chunk, namer, unnamed);
            charging?.Add(PerfSampleSource.Stream(chunk, namer, named, timeline.Clock, cursor));
            switches?.Add(chunk);
            offCpu?.Add(chunk);
            markers?.Add(chunk);
            otherThreads?.Add(chunk);
            session.Chunks.Recycle(chunk);
        }
        offCpu?.Finish();
        otherThreads?.Finish();
        var last = session.Chunks.Last;
        return new KernelRead
        {
            Samples = samples, ContextSwitches = switchOuts, Wakings = wakings, HasSwitchIns = switchIns,
            LostEvents = last?.LostEvents ?? 0, BadLines = session.Chunks.BadLines, Failure = session.Chunks.Failure,
            UnnamedLeavesByModule = unnamed,
            ThreadNames = last?.ThreadNames ?? [],
            MarkerWaits = markers?.Finish() ?? [],
            LastNs = lastNs,
        };
    }

    /// <summary>The chunk's last record (each list is in time order, as perf script writes them).</summary>
    private static long? LastNs(KernelTrace chunk)
    {
        long? last = null;
        if (chunk.Samples.Count > 0) last = Later(last, chunk.Samples[chunk.Samples.Count - 1].TimeNs);
        if (chunk.SwitchOuts.Count > 0) last = Later(last, chunk.SwitchOuts[chunk.SwitchOuts.Count - 1].TimeNs);
        if (chunk.SwitchIns.Count > 0) last = Later(last, chunk.SwitchIns[chunk.SwitchIns.Count - 1].TimeNs);
        if (chunk.SwitchOutRecords.Count > 0) last = Later(last, chunk.SwitchOutRecords[chunk.SwitchOutRecords.Count - 1].TimeNs);
        if (chunk.Wakings.Count > 0) last = Later(last, chunk.Wakings[chunk.Wakings.Count - 1].TimeNs);
        return last;
    }

    private static long? Later(long? a, long? b) => a is null ? b : b is null ? a : Math.Max(a.Value, b.Value);

    /// <summary>Samples whose leaf has no name (stripped native code, stubs), by module: the summary's unnamed share.</summary>
    private static void CountUnnamedLeaves(KernelTrace chunk, KernelFrameNamer namer, Dictionary<string, int> byModule)
    {
        foreach (var s in chunk.Samples)
        {
            if (s.StackId < 0) continue;
            var leaf = namer.Name(chunk.Stacks.Leaf(s.StackId)).Frame;
            if (leaf.Method == StackFrame.Unresolved) byModule[leaf.Module] = byModule.GetValueOrDefault(leaf.Module) + 1;
        }
    }
}
