using System.Text.Json;
using System.Text.Json.Serialization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// What the benchmark measured in-process (the "truth" a trace is checked against). Written by the benchmark as
/// results.json, read by the analyzer from a trace folder. Property names are the JSON contract.
/// </summary>
public sealed record BenchmarkResults
{
    public required string Runtime { get; init; }
    public required string OperatingSystem { get; init; }
    public required string Configuration { get; init; }
    public required bool DebuggerAttached { get; init; }
    public required int ProcessId { get; init; }
    public required DateTime StartTimeUtc { get; init; }
    public required string CommandLine { get; init; }
    /// <summary>--appcontext switches the benchmark set at startup; null when none.</summary>
    public Dictionary<string, bool>? AppContextSwitches { get; init; }
    /// <summary>RuntimeFeature.IsDynamicCodeSupported as the serializers saw it: false means reflection instead of emitted code.</summary>
    public bool? DynamicCodeSupported { get; init; }
    /// <summary>
    /// The GC's cap on gen0's budget (GC.GetConfigurationVariables' GCGen0MaxBudget). The runtime sizes it from the
    /// CPU's cache unless DOTNET_GCgen0size pins it, so collections per run differ between machines. Null before .NET 7.
    /// </summary>
    public long? GcGen0BudgetBytes { get; init; }
    /// <summary>DOTNET_GCgen0size as the benchmark saw it (null when unset): the budget was pinned, not sized from the cache.</summary>
    public string? GcGen0SizeSetting { get; init; }
    public List<RunResult> Runs { get; init; } = [];
    /// <summary>
    /// One entry per (serializer, operation, data, N): how many warm-up runs it had, why the warm-up stopped and whether
    /// it reached steady state. Null in results written before the warm-up policy (run 0 was the only warm-up).
    /// </summary>
    public List<WarmupResult>? Warmups { get; init; }
    public List<UnsupportedSerializer> Unsupported { get; init; } = [];
    public List<string> Errors { get; init; } = [];
    /// <summary>--heap: the snapshot points and their in-process measurements (null when none were requested).</summary>
    public List<HeapSnapshotInfo>? HeapSnapshots { get; init; }
    /// <summary>--tracing-cost: each case run again in untraced and traced blocks after its measured runs (null when not asked).</summary>
    public List<TracingCostCase>? TracingCost { get; init; }
    /// <summary>Why the tracing-cost blocks stopped early or did not run; null when they ran or were not asked.</summary>
    public string? TracingCostProblem { get; init; }
    /// <summary>--tracing-cost-sham (a test switch): the traced blocks ran with tracing off (null otherwise).</summary>
    public bool? TracingCostSham { get; init; }

    public static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    // Source-generated: reflection-based metadata costs more than reading a long results.json itself.
    public static BenchmarkResults Load(string path) =>
        // From bytes, not a stream: records with required members are read with whole-object read-ahead, which on a
        // stream re-buffers the file over and over (quadratic for a long results.json).
        Checked(JsonSerializer.Deserialize(File.ReadAllBytes(path), ResultsJsonContext.Default.BenchmarkResults)
            ?? throw new InvalidDataException($"{path}: empty benchmark results"), path);

    /// <summary>
    /// JSON null satisfies "required" and a non-nullable property alike: a damaged results.json is refused here
    /// (the analyzer then warns and goes on without it) rather than reaching the analysis half-filled.
    /// </summary>
    private static BenchmarkResults Checked(BenchmarkResults results, string path)
    {
        if (results.Runs is null || results.Runs.Any(r => r is null || r.Serializer is null || r.Operation is null || r.Data is null || r.GcCount is null))
            throw new InvalidDataException($"{path}: a run without its serializer, operation, data or GC counts");
        return results with
        {
            Unsupported = results.Unsupported?.Where(u => u?.Serializer is not null && u.Reason is not null).ToList() ?? [],
            Errors = results.Errors?.Where(e => e is not null).ToList() ?? [],
        };
    }

    /// <summary>
    /// Where the benchmark (process <paramref name="processId"/>) saves its results when the trace folder's disk is
    /// full; the recorder moves them into the folder once it has made room (docs/recorder.md#the-disk-fills-up).
    /// </summary>
    public static string FallbackPath(int processId) => System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"esp-results-{processId}.json");

    /// <summary>
    /// <see cref="Save"/>, but a full disk (or another write error) costs one line on <paramref name="error"/>, never
    /// an exception: the results go to <see cref="FallbackPath"/> instead, or are reported lost.
    /// </summary>
    public void SaveOrFallBack(string path, TextWriter error)
    {
        try { Save(path); return; }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            FileCleanup.TryDelete(path + ".tmp");
            var fallback = FallbackPath(Environment.ProcessId);
            try
            {
                Save(fallback);
                error.WriteLine($"results not written to {path} ({ex.Message}); saved to {fallback}");
            }
            catch (Exception ex2) when (ex2 is IOException or UnauthorizedAccessException)
            {
                FileCleanup.TryDelete(fallback + ".tmp");
                error.WriteLine($"results not written to {path} ({ex.Message}) nor to {fallback} ({ex2.Message}): they are lost");
            }
        }
    }

    public void Save(string path)
    {
        var tmp = path + ".tmp";
        using (var stream = File.Create(tmp)) JsonSerializer.Serialize(stream, this, ResultsJsonContext.Default.BenchmarkResults);
        File.Move(tmp, path, overwrite: true);
    }
}

public sealed record GcCounts(int Gen0, int Gen1, int Gen2)
{
    [System.Text.Json.Serialization.JsonIgnore]
    public int Total => Gen0 + Gen1 + Gen2;
    public static GcCounts operator +(GcCounts a, GcCounts b) => new(a.Gen0 + b.Gen0, a.Gen1 + b.Gen1, a.Gen2 + b.Gen2);
    public static readonly GcCounts Zero = new(0, 0, 0);
}

public sealed record RunResult
{
    public required string Serializer { get; init; }
    public string? SerializerVersion { get; init; }
    public string? Format { get; init; }
    public required string Operation { get; init; }
    public required string Data { get; init; }
    public required int Objects { get; init; }
    public required int Run { get; init; }
    public bool Warmup { get; init; }
    public int Threads { get; init; } = 1;
    /// <summary>
    /// Serializer calls inside the run's window (operations per run). DurationMs, OuterDurationMs and every counter
    /// below cover all of them, as a trace's run window does; 1 in results written before operations per run existed.
    /// </summary>
    public int Operations { get; init; } = 1;
    public required double DurationMs { get; init; }
    /// <summary>DurationMs / Operations: the time of one serializer call, what the tables report.</summary>
    public double DurationPerOperationMs => DurationMs / Math.Max(1, Operations);
    /// <summary>
    /// Stopwatch from just before RunBegin to just after RunEnd: DurationMs plus the two events' writes. A trace's
    /// run window lies between the two; a large gap means the worker was held up writing an event (a busy machine).
    /// </summary>
    public double? OuterDurationMs { get; init; }
    public long SizeBytes { get; init; }
    public required GcCounts GcCount { get; init; }
    public required double GcPauseMs { get; init; }
    public required long AllocatedBytes { get; init; }
    public double CpuMs { get; init; }
    /// <summary>
    /// The CPU clocks of every thread that worked for the run, summed: the worker's (read next to the Stopwatch) and,
    /// with --threads T, each of the T crew threads' (read from the worker just outside the window; Linux only). The
    /// truth a trace's charge of the run (all its threads inside the window) is held to; CpuMs is the process's then.
    /// Null in results written before it existed, or where a crew's clocks could not be read.
    /// </summary>
    public double? ThreadsCpuMs { get; init; }
    /// <summary>
    /// The process's CPU clock (every thread's, live or exited) from just before to just after the window, in every
    /// run: the workers' CPU plus what ran beside them (background GC, tiering, the finalizer, the tracer's threads).
    /// The truth a trace's process total (workers and other threads) is held to. Null in results written before it.
    /// </summary>
    public double? ProcessCpuMs { get; init; }
    /// <summary>
    /// Methods the JIT compiled in the whole process from just before to just after the run's window, background
    /// tier-up included (System.Runtime.JitInfo); null where the runtime has no such counter.
    /// </summary>
    public long? CompiledMethods { get; init; }
    /// <summary>JIT compilation time over the same interval and scope as CompiledMethods.</summary>
    public double? CompilationMs { get; init; }
    /// <summary>
    /// The worker thread's own JIT compilation time over the same interval (System.Runtime.JitInfo, currentThread):
    /// the truth a trace's JIT ms of the run is held to. Null in older results and where the runtime has no counter.
    /// </summary>
    public double? ThreadCompilationMs { get; init; }
    /// <summary>
    /// First-chance exceptions thrown in the whole process over the same interval (AppDomain.FirstChanceException):
    /// the truth a trace's exception count of the run is held to. Null in results written before it existed.
    /// </summary>
    public long? Exceptions { get; init; }
    public int WorkerThreadId { get; init; }
    public int MarkerThreadId { get; init; }
    public string? Verification { get; init; }
}

public sealed record UnsupportedSerializer(string Serializer, string Reason);

/// <summary>How one (serializer, operation, data, N) was warmed up before its measured runs (docs/benchmark.md#warm-up).</summary>
public sealed record WarmupResult
{
    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    public required string Data { get; init; }
    public required int Objects { get; init; }
    /// <summary>"auto" (run until steady state or a bound) or "fixed" (--warmup N).</summary>
    public required string Policy { get; init; }
    public required int WarmupRuns { get; init; }
    public required int MeasuredRuns { get; init; }
    /// <summary>Operations per measured run (the pilot's choice, or --ops).</summary>
    public required int Operations { get; init; }
    /// <summary>Whether the stopping rule held when the warm-up ended (for a fixed count: whether it held after those runs).</summary>
    public required bool SteadyState { get; init; }
    /// <summary>Why the warm-up ended, in words: the rule held, a bound was reached, or the count was fixed.</summary>
    public required string Reason { get; init; }
    /// <summary>Wall time from the first warm-up run's start to the last one's end.</summary>
    public double WarmupMs { get; init; }
    /// <summary>Methods the JIT compiled (whole process) during the warm-up runs and during the measured runs; null without a JIT counter.</summary>
    public long? WarmupCompiledMethods { get; init; }
    public long? MeasuredCompiledMethods { get; init; }
}

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, WriteIndented = true,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(BenchmarkResults))]
internal sealed partial class ResultsJsonContext : JsonSerializerContext;
