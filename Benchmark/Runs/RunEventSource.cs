using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// Names each measured run in the trace. The marker thread's wait delimits the run precisely; these events say
/// which serializer, operation and size it was. Event ids and field names are the contract in Common.RunEvents.
/// The event methods are fully optimized from their first call (AggressiveOptimization): they run once per run, and
/// their tier-ups would otherwise be JIT activity the warm-up has to wait out.
/// </summary>
[EventSource(Name = RunEvents.ProviderName)]
public sealed class RunEventSource : EventSource
{
    public static readonly RunEventSource Log = new();

    private RunEventSource() : base(EventSourceSettings.EtwManifestEventFormat) { }

    // Warmup and Operations were appended in version 1: fields are only ever added at the end, with a new version.
    [Event(RunEvents.RunStartId, Level = EventLevel.Informational, Opcode = EventOpcode.Info, Version = RunEvents.RunStartStopVersion)]
    [MethodImpl(HarnessCode.Optimized)]
    public void RunStart(string Serializer, string Operation, string Data, int Objects, int Run, int MarkerThreadId, int WorkerThreadId, bool Warmup, int Operations) =>
        WriteEvent(RunEvents.RunStartId, Serializer, Operation, Data, Objects, Run, MarkerThreadId, WorkerThreadId, Warmup, Operations);

    /// <summary>The worker's own "Stopwatch starts now": pins the run's start even when the marker wakes late.</summary>
    [Event(RunEvents.RunBeginId, Level = EventLevel.Informational)]
    [MethodImpl(HarnessCode.Optimized)]
    public void RunBegin() => WriteEvent(RunEvents.RunBeginId);

    [Event(RunEvents.RunEndId, Level = EventLevel.Informational)]
    [MethodImpl(HarnessCode.Optimized)]
    public void RunEnd() => WriteEvent(RunEvents.RunEndId);

    [Event(RunEvents.RunStopId, Level = EventLevel.Informational, Opcode = EventOpcode.Info, Version = RunEvents.RunStartStopVersion)]
    [MethodImpl(HarnessCode.Optimized)]
    public void RunStop(string Serializer, string Operation, string Data, int Objects, int Run, int MarkerThreadId, int WorkerThreadId, double DurationMs, bool Warmup, int Operations) =>
        WriteEvent(RunEvents.RunStopId, Serializer, Operation, Data, Objects, Run, MarkerThreadId, WorkerThreadId, DurationMs, Warmup, Operations);
}
