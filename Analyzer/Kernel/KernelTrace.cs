using EtwSerializerProfiler.Analyzer.Collections;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>A frame as perf recorded it: the address (absolute, or relative to <see cref="Dso"/> as perf prints it), perf's symbol and file.</summary>
internal readonly record struct RawFrame(ulong Address, string Symbol, string Dso, bool Kernel);

/// <summary>An on-CPU sample: one sample period of the thread's CPU time.</summary>
internal readonly record struct KernelSample(long TimeNs, int ThreadId, int StackId);

/// <summary>
/// A thread leaving the CPU (sched_switch). State is the kernel's prev_state: 'R' preempted while runnable,
/// 'S' sleeping (a wait), 'D' uninterruptible (I/O, page-in). The stack is where it stopped.
/// </summary>
internal readonly record struct KernelSwitchOut(long TimeNs, int ThreadId, char State, int NextThreadId, int StackId);

/// <summary>A thread made runnable (sched_waking), in the waker's context.</summary>
internal readonly record struct KernelWaking(long TimeNs, int WakerThreadId, int ThreadId, int StackId);

/// <summary>
/// The Linux kernel session of a trace folder (perf), in perf's clock (CLOCK_MONOTONIC ns). Stacks and frames
/// are interned: a stack is a node of <see cref="StackTree{T}"/>, its frames read leaf first. Lists are in time order.
/// A long session is read in chunks, each one of these (<see cref="KernelChunks"/>).
/// </summary>
internal sealed class KernelTrace
{
    public const int NoStack = -1;

    public ChunkedList<KernelSample> Samples { get; } = [];
    public ChunkedList<KernelSwitchOut> SwitchOuts { get; } = [];
    /// <summary>Exact times a thread got the CPU (PERF_RECORD_SWITCH IN), when --switch-events was recorded.</summary>
    public ChunkedList<(long TimeNs, int ThreadId)> SwitchIns { get; } = [];
    /// <summary>
    /// <see cref="SwitchIns"/> at the times the threads' CPU clocks started: each IN record credited back to the
    /// pick perf recorded before it (<see cref="SwitchInCredit"/>). Where on-CPU time starts and off-CPU time ends;
    /// not in time order across CPUs. A trace made by hand may leave it empty: the IN records then stand.
    /// </summary>
    public ChunkedList<(long TimeNs, int ThreadId)> OnCpuFrom { get; } = [];
    /// <summary>Where on-CPU stretches start: <see cref="OnCpuFrom"/> when read with the IN records, else the IN records.</summary>
    public ChunkedList<(long TimeNs, int ThreadId)> OnCpuStarts => OnCpuFrom.Count == SwitchIns.Count ? OnCpuFrom : SwitchIns;
    /// <summary>
    /// Times a thread left the CPU as the same perf hook pair stamps them (PERF_RECORD_SWITCH OUT), a few
    /// microseconds after the sched_switch tracepoint: the edges of on-CPU time (<see cref="SwitchCpuTime"/>).
    /// </summary>
    public ChunkedList<(long TimeNs, int ThreadId)> SwitchOutRecords { get; } = [];
    public ChunkedList<KernelWaking> Wakings { get; } = [];
    /// <summary>The frames of this trace, or of this chunk of one read in chunks (frame ids are the chunk's own).</summary>
    public List<RawFrame> Frames { get; } = [];
    /// <summary>Every stack, interned from the root; an event's StackId is its leaf node.</summary>
    public StackTree<int> Stacks { get; } = new();
    /// <summary>Thread names perf saw (comm), last one wins.</summary>
    public Dictionary<int, string> ThreadNames { get; init; } = [];
    public long LostEvents { get; set; }
    public int ProcessId { get; set; }
    /// <summary>The period of the CPU samples, from the manifest (each sample stands for that much CPU time).</summary>
    public double SamplePeriodMs { get; set; } = 1.0;
    public bool HasSwitchIns => SwitchIns.Count > 0;

    /// <summary>
    /// A chunk read into again (<see cref="KernelChunks"/> hands chunks back to the reader once charged): its records,
    /// frames and stacks gone, its storage kept, so a long trace's chunks are not garbage that outlives the young
    /// generation (a chunk waits in the read-ahead, and the GC promoted each one, to die old).
    /// </summary>
    public void Clear()
    {
        Samples.Clear();
        SwitchOuts.Clear();
        SwitchIns.Clear();
        OnCpuFrom.Clear();
        SwitchOutRecords.Clear();
        Wakings.Clear();
        Frames.Clear();
        Stacks.Clear();
    }
}
