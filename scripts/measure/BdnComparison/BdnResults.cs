using System.Text.Json;
using System.Text.Json.Serialization;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>
/// What one `run` wrote: one case per serializer, operation, data and N, in the benchmark's names (Data is the type
/// name, Operation lower case) so the comparison table can join it with the benchmark's results.json.
/// </summary>
public sealed record BdnResults
{
    public required string BenchmarkDotNetVersion { get; init; }
    public required string Runtime { get; init; }
    /// <summary>"InProcessEmit" or "default" (a generated project and a child process per case).</summary>
    public required string Toolchain { get; init; }
    /// <summary>The job as BenchmarkDotNet shows it, e.g. "IterationCount=15" ("Default" when nothing was set).</summary>
    public required string Job { get; init; }
    public List<BdnCase> Cases { get; init; } = [];
    /// <summary>Cases not run (unsupported data) or failed, one line each.</summary>
    public List<string> Errors { get; init; } = [];

    public static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    public void Save(string path) => File.WriteAllText(path, JsonSerializer.Serialize(this, JsonOptions));

    public static BdnResults Load(string path)
    {
        try
        {
            return JsonSerializer.Deserialize<BdnResults>(File.ReadAllBytes(path), JsonOptions)
                ?? throw new BadInputException($"{path}: empty BenchmarkDotNet results");
        }
        catch (JsonException ex)
        {
            throw new BadInputException($"{path}: not a BdnComparison results file ({ex.Message})", ex);
        }
    }
}

/// <summary>
/// One benchmark case. Times are per operation (one serializer call), in milliseconds. ResultMs are BenchmarkDotNet's
/// Result measurements: the Actual workload iterations minus the overhead median, upper outliers removed.
/// </summary>
public sealed record BdnCase
{
    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    public required string Data { get; init; }
    public required int Objects { get; init; }
    public required double MeanMs { get; init; }
    public required double MedianMs { get; init; }
    public required double MinMs { get; init; }
    public required double MaxMs { get; init; }
    public required double StdDevMs { get; init; }
    /// <summary>Serializer calls per iteration, as the pilot stage chose them (or the job fixed them).</summary>
    public required long OperationsPerIteration { get; init; }
    public required int WarmupIterations { get; init; }
    /// <summary>Workload Actual iterations measured, before outlier removal.</summary>
    public required int MeasuredIterations { get; init; }
    public required List<double> ResultMs { get; init; }
    /// <summary>
    /// The Workload Actual iterations as the engine's clock measured them, per operation, in the order they ran: no
    /// overhead subtracted, no outliers removed (what a trace's iteration windows measure; TracedBdnRunsTests).
    /// </summary>
    public List<double> ActualMs { get; init; } = [];
    /// <summary>
    /// The workload's pilot, warm-up and actual iterations. Not the jitting ones: BenchmarkDotNet keeps only those of
    /// the engine it chose, while the engine events show every one (1 to 3).
    /// </summary>
    public int WorkloadIterations { get; init; }
    public int OverheadIterations { get; init; }
}
