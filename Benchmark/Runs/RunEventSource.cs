using System.Diagnostics.Tracing;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// Names each measured run in the trace. The marker thread's wait delimits the run precisely; these events say
/// which serializer, operation and size it was. Event ids and field names are the contract in Common.RunEvents.
/// </summary>
[EventSource(Name = RunEvents.ProviderName)]
public sealed class RunEventSource : EventSource
{
    public static readonly RunEventSource Log = new();

    private RunEventSource() : base(EventSourceSettings.EtwManifestEventFormat) { }

    [Event(RunEvents.RunStartId, Level = EventLevel.Informational, Opcode = EventOpcode.Info)]
    public void RunStart(string Serializer, string Operation, string Data, int Objects, int Run, int MarkerThreadId, int WorkerThreadId) =>
        WriteEvent(RunEvents.RunStartId, Serializer, Operation, Data, Objects, Run, MarkerThreadId, WorkerThreadId);

    /// <summary>The worker's own "Stopwatch starts now": pins the run's start even when the marker wakes late.</summary>
    [Event(RunEvents.RunBeginId, Level = EventLevel.Informational)]
    public void RunBegin() => WriteEvent(RunEvents.RunBeginId);

    [Event(RunEvents.RunEndId, Level = EventLevel.Informational)]
    public void RunEnd() => WriteEvent(RunEvents.RunEndId);

    [Event(RunEvents.RunStopId, Level = EventLevel.Informational, Opcode = EventOpcode.Info)]
    public void RunStop(string Serializer, string Operation, string Data, int Objects, int Run, int MarkerThreadId, int WorkerThreadId, double DurationMs) =>
        WriteEvent(RunEvents.RunStopId, Serializer, Operation, Data, Objects, Run, MarkerThreadId, WorkerThreadId, DurationMs);
}
