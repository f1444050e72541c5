using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// One real recording of the real benchmark, shared by the end-to-end tests: EventPipe with the default profile and
/// the Linux kernel session, allocation-heavy enough (256-byte payloads) that GCs happen inside runs, small enough
/// for CI.
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
    /// <summary>
    /// The GC's gen0 budget, pinned: the runtime sizes it from the CPU's cache (16 MiB from a 32 MiB L3), and a machine
    /// with a 300 MiB L3 made one collection inside these runs where this one makes dozens. Tests that need
    /// collections pass it to the recorded process (issue 59).
    /// </summary>
    public const string PinnedGen0 = "DOTNET_GCgen0size=0x1000000";

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
            "--payload-bytes", "256", "--serializers", string.Join(",", Serializers), "--quiet",
            // Both CPU sources in one recording: the kernel session (the default on Linux) for the tables, and
            // EventPipe's sampler, which it normally replaces, so EventPipe-only analysis stays tested on the same runs.
            "--eventpipe-samples", "on", "--env", PinnedGen0);
        InProcess = Recording.Results(Folder);
        using var input = TraceInput.Open(Folder.Path);
        Analysis = new TraceAnalyzer(new AnalyzerOptions { CollectHotMethods = true, KeepMarks = true }).Analyze(input);
        _eventPipe = new Lazy<TraceAnalysis>(() =>
        {
            using var again = TraceInput.Open(Folder.Path);
            return new TraceAnalyzer(new AnalyzerOptions { CollectHotMethods = true, UseKernelSession = false, KeepMarks = true }).Analyze(again);
        });
    }

    private readonly Lazy<TraceAnalysis> _eventPipe;

    /// <summary>The same trace analyzed as if it had no kernel session: CPU from EventPipe's sampler; with its marks, for --firefox.</summary>
    public TraceAnalysis EventPipeAnalysis => _eventPipe.Value;

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }
}

[CollectionDefinition(Name)]
public sealed class RecordedBenchmarkCollection : ICollectionFixture<RecordedBenchmark>
{
    public const string Name = "recorded benchmark";
}
