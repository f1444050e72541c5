using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// One real recording of the real benchmark, shared by the end-to-end tests: EventPipe, default profile,
/// allocation-heavy enough (256-byte payloads) that GCs happen inside runs, small enough for CI.
/// </summary>
public sealed class RecordedBenchmark : IDisposable
{
    public static readonly string[] Serializers = ["Reflection", "Google.Protobuf", "System.Text.Json"];
    public const int Objects = 40_000;
    /// <summary>
    /// Runs per serializer and operation: one warm-up and Runs - 1 measured, one call each (--warmup 1 --ops 1), the
    /// structure these truth checks were written against before the benchmark's automatic warm-up.
    /// </summary>
    public const int Runs = 3;

    public TraceFolder Folder { get; }
    public int ExitCode { get; }
    public BenchmarkResults InProcess { get; }
    public TraceAnalysis Analysis { get; }
    private readonly string _dir;

    public RecordedBenchmark()
    {
        _dir = Repo.NewTempDir("e2e");
        (ExitCode, Folder) = Recording.Record(Path.Combine(_dir, "trace"),
            "--n", Objects.ToString(System.Globalization.CultureInfo.InvariantCulture), "--warmup", "1", "--runs", (Runs - 1).ToString(System.Globalization.CultureInfo.InvariantCulture), "--ops", "1",
            "--payload-bytes", "256", "--serializers", string.Join(",", Serializers), "--quiet");
        InProcess = Recording.Results(Folder);
        using var input = TraceInput.Open(Folder.Path);
        Analysis = new TraceAnalyzer(new AnalyzerOptions { CollectHotMethods = true }).Analyze(input);
    }

    public void Dispose()
    {
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }
}

[CollectionDefinition(Name)]
public sealed class RecordedBenchmarkCollection : ICollectionFixture<RecordedBenchmark>
{
    public const string Name = "recorded benchmark";
}
