using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// Names each measured run in the trace: provider <c>EtwSerializerProfiler-Runs</c>. The marker thread's wait delimits
/// the run; these events say which case, operation and size it was, and RunBegin/RunEnd sit next to the Stopwatch reads.
/// Ids, field names and their order are a contract with the analyzer (Common.RunEvents and docs/run-markers.md): fields
/// are only ever appended, with a new version. Write them through <see cref="MarkedRuns"/> or <see cref="RunMarker"/>,
/// which keep their order; calling these methods directly makes runs the analyzer cannot pair.
/// The event methods are fully optimized from their first call: they run once per run, and their tier-ups would
/// otherwise be JIT activity the benchmark's warm-up has to wait out.
/// </summary>
[EventSource(Name = ProviderName)]
public sealed class RunEventSource : EventSource
{
    /// <summary>The provider to enable in a trace (dotnet-trace <c>--providers EtwSerializerProfiler-Runs</c>; esp's profiles do).</summary>
    public const string ProviderName = "EtwSerializerProfiler-Runs";
    /// <summary>RunStart: the run's description, on the worker, before anything is measured.</summary>
    public const int RunStartId = 1;
    /// <summary>RunStop: the description again and the Stopwatch duration, on the worker, after the counters are read.</summary>
    public const int RunStopId = 2;
    /// <summary>RunBegin: no payload, immediately before the Stopwatch starts.</summary>
    public const int RunBeginId = 3;
    /// <summary>RunEnd: immediately after the Stopwatch stops; version 1 carries the Stopwatch's two reads (raw ticks).</summary>
    public const int RunEndId = 4;
    /// <summary>RunThread: one more thread that works for the run besides the worker (--threads), between RunStart and RunBegin.</summary>
    public const int RunThreadId = 5;
    /// <summary>Version of RunEnd: 1 added StartTimestamp and StopTimestamp (version 0 had no payload).</summary>
    public const int RunEndVersion = 1;
    /// <summary>
    /// Version of RunStart and RunStop: 1 appended Warmup and Operations to version 0's fields; 2 appended RunStop's
    /// Exceptions (RunStart's fields are those of version 1).
    /// </summary>
    public const int RunStartStopVersion = 2;

    /// <summary>The one instance; EventSource wants one per provider and process.</summary>
    public static readonly RunEventSource Log = new();

    private RunEventSource() : base(EventSourceSettings.EtwManifestEventFormat) { }

    /// <summary>A run starts: what it is (Serializer is the case's name), its number, and the two threads involved.</summary>
    [Event(RunStartId, Level = EventLevel.Informational, Opcode = EventOpcode.Info, Version = RunStartStopVersion)]
    [MethodImpl(Harness.Optimized)]
    public void RunStart(string Serializer, string Operation, string Data, int Objects, int Run, int MarkerThreadId, int WorkerThreadId, bool Warmup, int Operations) =>
        WriteEvent(RunStartId, Serializer, Operation, Data, Objects, Run, MarkerThreadId, WorkerThreadId, Warmup, Operations);

    /// <summary>
    /// A thread that works for the run besides its worker (the benchmark's --threads crew), written on the worker after
    /// RunStart and before the window opens, once per thread: the analyzer charges that thread's samples, off-CPU time
    /// and events inside the window to the run.
    /// </summary>
    [Event(RunThreadId, Level = EventLevel.Informational)]
    [MethodImpl(Harness.Optimized)]
    public void RunThread(int ThreadId) => WriteEvent(RunThreadId, ThreadId);

    /// <summary>The worker's own "Stopwatch starts now": pins the run's start even when the marker wakes late.</summary>
    [Event(RunBeginId, Level = EventLevel.Informational)]
    [MethodImpl(Harness.Optimized)]
    public void RunBegin() => WriteEvent(RunBeginId);

    /// <summary>
    /// The worker's "Stopwatch stopped", with the Stopwatch's own reads (Stopwatch.GetTimestamp ticks): the analyzer puts
    /// the window exactly there, on the clock the trace's timestamps use (QPC; CLOCK_MONOTONIC on Linux). The events'
    /// own timestamps enclose them but also what runs between (the thread CPU clock read, writing RunBegin), where a
    /// busy machine deschedules the worker for milliseconds (issue 22).
    /// </summary>
    [Event(RunEndId, Level = EventLevel.Informational, Version = RunEndVersion)]
    [MethodImpl(Harness.Optimized)]
    public void RunEnd(long StartTimestamp, long StopTimestamp) => WriteEvent(RunEndId, StartTimestamp, StopTimestamp);

    /// <summary>
    /// A run is over: RunStart's fields again, with the Stopwatch's DurationMs before Warmup and Operations, and the
    /// first-chance exceptions the process threw from RunStart to RunStop (version 2).
    /// </summary>
    [Event(RunStopId, Level = EventLevel.Informational, Opcode = EventOpcode.Info, Version = RunStartStopVersion)]
    [MethodImpl(Harness.Optimized)]
    public void RunStop(string Serializer, string Operation, string Data, int Objects, int Run, int MarkerThreadId, int WorkerThreadId, double DurationMs, bool Warmup, int Operations, long Exceptions) =>
        WriteEvent(RunStopId, Serializer, Operation, Data, Objects, Run, MarkerThreadId, WorkerThreadId, DurationMs, Warmup, Operations, Exceptions);
}
