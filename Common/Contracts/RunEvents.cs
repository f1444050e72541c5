namespace EtwSerializerProfiler.Common;

/// <summary>
/// The contract between the benchmark's run EventSource and everything that reads it (analyzer, WPA regions,
/// recorder profiles). Changing a value here changes the trace format: keep docs/benchmark.md in step.
/// </summary>
public static class RunEvents
{
    public const string ProviderName = "EtwSerializerProfiler-Runs";

    /// <summary>EventSource derives the ETW/EventPipe provider GUID from the name; WPA regions need it literally.</summary>
    public static readonly Guid ProviderGuid = EventSourceGuid.FromName(ProviderName);

    public const int RunStartId = 1;
    public const int RunStopId = 2;
    /// <summary>Emitted on the worker thread immediately before the Stopwatch starts (no payload, no allocation).</summary>
    public const int RunBeginId = 3;
    /// <summary>Emitted on the worker thread immediately after the Stopwatch stops; version 1 carries its two reads (<see cref="Fields.StartTimestamp"/>).</summary>
    public const int RunEndId = 4;
    /// <summary>
    /// Emitted on the worker after RunStart and before RunBegin, once per other thread that works for the run (the
    /// benchmark's --threads crew): its ThreadId's samples, off-CPU time and events in the window are the run's.
    /// </summary>
    public const int RunThreadId = 5;
    public const string RunStartName = "RunStart";
    public const string RunStopName = "RunStop";

    /// <summary>
    /// Version of RunStart and RunStop. 0: the fields up to WorkerThreadId (RunStop: DurationMs). 1: Warmup and
    /// Operations appended (EventSource's rule: new payload fields only at the end, and a new version with them).
    /// A reader of a version-0 trace sees neither field: treat such runs as one operation each, with run 0 of each
    /// (serializer, operation, N) the warm-up when there are more runs, as that benchmark did. 2: RunStop appended
    /// <see cref="Fields.Exceptions"/>.
    /// </summary>
    public const int RunStartStopVersion = 2;

    /// <summary>Version of RunEnd. 0: no payload. 1: StartTimestamp and StopTimestamp, the Stopwatch's reads (the analyzer's window edges).</summary>
    public const int RunEndVersion = 1;

    public static class Fields
    {
        public const string Serializer = "Serializer";
        public const string Operation = "Operation";
        public const string Data = "Data";
        public const string Objects = "Objects";
        public const string Run = "Run";
        public const string MarkerThreadId = "MarkerThreadId";
        public const string WorkerThreadId = "WorkerThreadId";
        /// <summary>RunThread: the OS thread id of a thread working for the run besides the worker.</summary>
        public const string ThreadId = "ThreadId";
        public const string DurationMs = "DurationMs";
        /// <summary>Version 1+: true for a warm-up run (not measured: the benchmark's tables leave it out).</summary>
        public const string Warmup = "Warmup";
        /// <summary>Version 1+: serializer calls inside the run's window; DurationMs and every counter cover all of them.</summary>
        public const string Operations = "Operations";
        /// <summary>
        /// RunStop version 2+: first-chance exceptions the process threw from RunStart to RunStop, counted in-process
        /// (every thread's). Exact without an event per throw.
        /// </summary>
        public const string Exceptions = "Exceptions";
        /// <summary>RunEnd version 1: the Stopwatch's start and stop reads (Stopwatch.GetTimestamp ticks), on the trace's clock.</summary>
        public const string StartTimestamp = "StartTimestamp";
        public const string StopTimestamp = "StopTimestamp";
    }

    /// <summary>NoInlining marker methods: the marker thread's wait is identified by these frames.</summary>
    public static readonly IReadOnlyDictionary<string, string> MarkerMethodByOperation = new Dictionary<string, string>
    {
        ["serialize"] = "SerializeDuration",
        ["deserialize"] = "DeserializeDuration",
        ["firstcall"] = "FirstCallDuration",
    };

    /// <summary>Where the marker waits for any other operation (an app's own, through RunMarkers).</summary>
    public const string OtherMarkerMethod = "OtherDuration";

    /// <summary>Every marker wait method, the operations' first (<see cref="MarkerMethodByOperation"/>), then <see cref="OtherMarkerMethod"/>.</summary>
    public static readonly IReadOnlyList<string> MarkerMethods = [.. MarkerMethodByOperation.Values, OtherMarkerMethod];

    /// <summary>The class whose methods are the marker's waits (RunMarkers' MarkerThread; the benchmark's own before the library).</summary>
    public const string MarkerClass = "MarkerThread";

    /// <summary>Whether a frame's method is one of the marker class's (whose waits are run windows).</summary>
    public static bool IsMarkerMethod(string method) => method.IndexOf(MarkerClass, StringComparison.Ordinal) >= 0;

    /// <summary>The operation a marker wait method stands for; "other" for <see cref="OtherMarkerMethod"/> or an unknown one.</summary>
    public static string OperationOfMarkerMethod(string? method) =>
        method is not null && MarkerMethodByOperation.FirstOrDefault(p => p.Value == method).Key is { } operation ? operation : "other";
}
