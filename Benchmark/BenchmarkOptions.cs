using EtwSerializerProfiler.Benchmark.Configuration;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Benchmark.Runs.Warmup;
using EtwSerializerProfiler.Benchmark.Scenarios;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark;

public enum TestMode { Combined, Serialize, Deserialize, FirstCall }

/// <summary>The benchmark's command line. The recorder passes these through unchanged, so they are one definition.</summary>
public sealed record BenchmarkOptions
{
    /// <summary>The quick default set: every serializer at two sizes (about 40 s on 2 cores, most of it warm-up).</summary>
    public static readonly IReadOnlyList<int> DefaultCounts = [100, 10_000];
    /// <summary>Measured runs per case, after the warm-up: enough for a spread (CV, min-max) to mean something.</summary>
    public const int DefaultRuns = 5;
    public const int VerifyByDefaultUpTo = 10_000;

    public TestMode Test { get; init; } = TestMode.Combined;
    public IReadOnlyList<int> Counts { get; init; } = DefaultCounts;
    /// <summary>Measured runs per serializer, operation and N (--runs); the warm-up runs come before them, on top.</summary>
    public int Runs { get; init; } = DefaultRuns;
    /// <summary>--warmup, --warmup-max-runs, --warmup-max-ms, --warmup-min-calls, --ops, --run-ms (docs/benchmark.md#warm-up).</summary>
    public WarmupPolicy Warmup { get; init; } = WarmupPolicy.Auto;
    public IReadOnlyList<Serializer> Serializers { get; init; } = [];
    public DataKind Data { get; init; } = DataKind.BookShelf;
    public int PayloadBytes { get; init; }
    public int Threads { get; init; } = 1;
    /// <summary>A known slow path reproduced by rewriting the input (--scenario); null = the serializer's own bytes.</summary>
    public InputScenario? Scenario { get; init; }
    public bool? Verify { get; init; }
    public bool List { get; init; }
    public bool Quiet { get; init; }
    public string? CsvPath { get; init; }
    public string? JsonPath { get; init; }
    public bool Help { get; init; }
    /// <summary>--appcontext Name=true|false (repeatable), applied at startup by <see cref="AppContextSwitches"/>.</summary>
    public IReadOnlyList<KeyValuePair<string, bool>> AppContext { get; init; } = [];

    /// <summary>Set for a firstcall child process: measure one serializer's first use, print nothing but results.</summary>
    public bool FirstCallChild { get; init; }

    /// <summary>Fault injection for recorder tests: Environment.FailFast after this many measured runs.</summary>
    public int? FailAfterRuns { get; init; }

    /// <summary>--heap: serializers whose deserialized graph is held for a heap snapshot (see HeapSnapshotPlan).</summary>
    public HeapSnapshotPlan? Heap { get; init; }

    /// <summary>--exit-pipe NAME: before exiting, wait for the ETW recorder's rundown (<see cref="ExitHandshake"/>).</summary>
    public string? ExitPipe { get; init; }

    /// <summary>--tracing-cost-pipe NAME: after the measured runs, measure what tracing costs (<see cref="TracingCostHandshake"/>).</summary>
    public string? TracingCostPipe { get; init; }

    /// <summary>--tracing-cost-runs R: runs of each case per tracing-cost block (default 2: 12 blocks are kept).</summary>
    public int TracingCostRuns { get; init; } = 2;

    /// <summary>
    /// Test switch --inject-traced-work F[,F...]: extra work per operation in traced blocks, as a share of the untraced
    /// time; the i-th serializer gets the i-th share, cycling (empty: none).
    /// </summary>
    public IReadOnlyList<double> InjectTracedWork { get; init; } = [];

    /// <summary>Test switch --tracing-cost-sham: traced blocks leave tracing off, so the blocks read the measurement's own noise (and any injected work).</summary>
    public bool TracingCostSham { get; init; }

    public bool ShouldVerify(int count) => Verify ?? count <= VerifyByDefaultUpTo;

    public static readonly IReadOnlyCollection<string> Flags = new HashSet<string>(StringComparer.OrdinalIgnoreCase)
    {
        "list", "verify", "no-verify", "quiet", "help", "h", "firstcall-child", "tracing-cost-sham",
    };

    public static BenchmarkOptions Parse(IReadOnlyList<string> args)
    {
        var r = new ArgReader(args, Flags);
        if (r.Positional.Count > 0) throw new UsageException($"unexpected argument '{r.Positional[0]}' (options start with --)");
        var options = new BenchmarkOptions
        {
            Help = r.Flag("help") || r.Flag("h"),
            Test = r.Enum("test", TestMode.Combined),
            Counts = r.IntList("n", DefaultCounts),
            Runs = r.Int("runs", DefaultRuns, min: 1, max: 1_000_000),
            Warmup = WarmupPolicy.Parse(r),
            Serializers = SerializerCatalog.Select(r.List("serializers")),
            Data = r.Enum("data", DataKind.BookShelf),
            PayloadBytes = r.Int("payload-bytes", 0, min: 0, max: 100_000_000),
            Threads = r.Int("threads", 1, min: 1, max: 1024),
            Scenario = ScenarioCatalog.Parse(r.String("scenario")),
            Verify = r.Flag("no-verify") ? false : r.Has("verify") ? r.Flag("verify") : null,
            List = r.Flag("list"),
            Quiet = r.Flag("quiet"),
            CsvPath = r.String(BenchmarkArgs.Csv),
            JsonPath = r.String(BenchmarkArgs.Json),
            FirstCallChild = r.Flag("firstcall-child"),
            FailAfterRuns = r.Has("fail-after-runs") ? r.Int("fail-after-runs", 0, min: 0) : null,
            AppContext = r.Strings("appcontext").Select(AppContextSwitch.Parse).ToList(),
            ExitPipe = r.String(ExitHandshake.Option),
            TracingCostPipe = r.String(TracingCostHandshake.Option),
            TracingCostRuns = r.Int("tracing-cost-runs", 2, min: 1, max: 10_000),
            InjectTracedWork = r.List("inject-traced-work").Select(f =>
                double.TryParse(f, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out var v) && v >= 0 && v <= 100 ? v
                : throw new UsageException($"--inject-traced-work expects shares from 0 to 100 like 0.05,0.2, got '{f}'")).ToList(),
            TracingCostSham = r.Flag("tracing-cost-sham"),
        };
        options = options with { Heap = HeapSnapshotPlan.Parse(r, options) };
        r.RejectUnknown("benchmark");
        if (options.Counts.Count == 0) throw new UsageException("--n needs at least one object count");
        if (options.Scenario is { } scenario)
        {
            if (options.Test == TestMode.FirstCall) throw new UsageException($"--scenario {scenario.Name} rewrites deserialize input; --test firstcall has none");
            if (scenario.InvalidOptionsReason(options) is { } invalid) throw new UsageException(invalid);
        }
        return options;
    }

    public const string Usage = """
        SerializerBenchmark: measure .NET serializers, with every run marked for tracing.

        Options:
          --test serialize|deserialize|combined|firstcall   what to measure (default combined)
          --n 1,10,100,1000,10k,1m        object counts (default 100,10000)
          --runs R                        measured runs per serializer, operation and N (default 5)
          --warmup auto|N                 warm-up runs before them: auto = until the JIT is done and durations
                                          settle, within the bounds below (default); N = exactly N; 0 = none (cold)
          --warmup-max-runs R, --warmup-max-ms T   bounds of the automatic warm-up per case (default 100, 2000)
          --warmup-min-calls C            calls a case makes before --warmup-max-ms may end its warm-up
                                          (default 60: two tier promotions of 30; 10x --warmup-max-ms still does)
          --ops auto|K                    serializer calls per run: auto = as many as make a run last --run-ms
                                          (default; 1 with --warmup 0); K = exactly K (1 = one call per run)
          --run-ms T                      target run length for --ops auto (default 20)
          --serializers a,b               case-insensitive subset (see --list)
          --data bookshelf|large|sharedstrings   payload type (default bookshelf)
          --payload-bytes B               byte[] payload per book (default 0)
          --threads T                     concurrent deserialization on T threads (default 1)
          --scenario NAME                 rewrite deserialize input into a known slow shape (docs/findings.md):
                                          base64-linebreaks | base64-indented-linebreaks
          --verify | --no-verify          round-trip check (default on for N <= 10,000)
          --csv F | --json F              write results; the console table is always printed
          --list                          list serializers with version, format and capabilities
          --quiet                         no progress on stderr, no table: only errors and serializers not run
          --appcontext Name=true|false    AppContext switch set at startup (repeatable), e.g.
                                          System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported=false
          --fail-after-runs K             crash (FailFast) after K runs: tests a recorder's crash handling
          --heap a,b                      after a,b's runs of one size, deserialize once more and hold original and
                                          result for a heap snapshot (taken by `esp record --heap`; see docs/heap.md)
          --heap-objects N                the size to snapshot (default: the first --n)
          --exit-pipe NAME                before exiting, wait for the ETW recorder's rundown (set by esp record)
          --tracing-cost-pipe NAME        after the measured runs, run each case again with tracing off and on
                                          (set by esp record --tracing-cost; docs/recorder.md)
          --tracing-cost-runs R           runs of each case per tracing-cost block (default 2)
          --inject-traced-work F[,F...]   test switch: in traced blocks, spin F x the untraced time per operation
                                          (the i-th serializer gets the i-th F)
          --tracing-cost-sham             test switch: traced blocks leave tracing off (the measurement's own noise)
        """;
}
