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
            "--n", Objects.ToString(System.Globalization.CultureInfo.InvariantCulture), "--runs", Runs.ToString(System.Globalization.CultureInfo.InvariantCulture),
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
