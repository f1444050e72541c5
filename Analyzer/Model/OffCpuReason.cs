namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// Why a run's worker was off the CPU inside the run's window (Kernel/OffCpuClassifier, from the kernel session's
/// context switches and the runtime's suspensions and lock waits), most specific first. Written by its
/// <see cref="WireNameAttribute"/> (the JSON's "offCpuMs" keys and the tables' reasons).
/// </summary>
public enum OffCpuReason
{
    [WireName("GC (runtime suspended)")] Gc,
    [WireName("runtime suspension, not GC (EventPipe sampler, tiering)")] Suspension,
    [WireName("lock contention")] Lock,
    [WireName("preempted (runnable, no CPU)")] Preempted,
    [WireName("ready (woken, no CPU yet)")] Ready,
    [WireName("uninterruptible (I/O, page-in)")] Uninterruptible,
    [WireName("waiting (other)")] Waiting,
}
