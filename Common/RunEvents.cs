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
    /// <summary>Emitted on the worker thread immediately after the Stopwatch stops.</summary>
    public const int RunEndId = 4;
    public const string RunStartName = "RunStart";
    public const string RunStopName = "RunStop";

    public static class Fields
    {
        public const string Serializer = "Serializer";
        public const string Operation = "Operation";
        public const string Data = "Data";
        public const string Objects = "Objects";
        public const string Run = "Run";
        public const string MarkerThreadId = "MarkerThreadId";
        public const string WorkerThreadId = "WorkerThreadId";
        public const string DurationMs = "DurationMs";
    }

    /// <summary>NoInlining marker methods: the marker thread's wait is identified by these frames.</summary>
    public static readonly IReadOnlyDictionary<string, string> MarkerMethodByOperation = new Dictionary<string, string>
    {
        ["serialize"] = "SerializeDuration",
        ["deserialize"] = "DeserializeDuration",
        ["firstcall"] = "FirstCallDuration",
    };
}
