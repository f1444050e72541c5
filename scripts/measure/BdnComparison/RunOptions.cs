using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>`run`'s command line. Selection options have the benchmark's names and values, so a script passes both the same.</summary>
public sealed record RunOptions(Selection Selection, string JsonPath, string ArtifactsPath, bool InProcess,
    int? WarmupCount, int? IterationCount, int? IterationTimeMs)
{
    public static readonly IReadOnlySet<string> Flags = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "inprocess" };

    public static RunOptions Parse(IReadOnlyList<string> args)
    {
        var r = new ArgReader(args, Flags);
        if (r.Positional.Count > 0) throw new UsageException($"run: unexpected argument '{r.Positional[0]}' (options start with --)");
        var names = r.List("serializers");
        var test = r.Enum("test", TestMode.Combined);
        var counts = r.IntList("n", Selection.Current.Counts);
        var selection = new Selection(
            names.Count == 0 ? Selection.Current.Serializers : SerializerCatalog.Select(names),
            test switch
            {
                TestMode.Serialize => [Selection.Serialize],
                TestMode.Deserialize => [Selection.Deserialize],
                TestMode.Combined => [Selection.Serialize, Selection.Deserialize],
                _ => throw new UsageException("run: --test firstcall has no steady state to compare; use serialize, deserialize or combined"),
            },
            r.Enum("data", DataKind.BookShelf),
            counts);
        var json = r.String("json") ?? throw new UsageException("run: --json FILE is required (where the results go)");
        var options = new RunOptions(selection, json,
            r.String("artifacts") ?? Path.Combine(Path.GetTempPath(), "esp-bdn-artifacts"),
            r.Flag("inprocess"),
            Optional(r, "warmup-count", 0, 1000),
            Optional(r, "iteration-count", 1, 1000),
            Optional(r, "iteration-time-ms", 1, 60_000));
        r.RejectUnknown("run");
        if (counts.Count == 0 || counts.Any(n => n < 1)) throw new UsageException("run: --n needs object counts of at least 1");
        return options;
    }

    private static int? Optional(ArgReader r, string name, int min, int max) => r.Has(name) ? r.Int(name, 0, min, max) : null;

    public const string Usage = """
        BdnComparison: the serializer benchmark's measured window, measured by BenchmarkDotNet (docs/benchmark.md).

          run --json F [options]       run BenchmarkDotNet, write per-case results to F
            --serializers a,b          the benchmark's serializer names (default: the five of docs/benchmark.md)
            --test serialize|deserialize|combined   (default combined)
            --data bookshelf|large|sharedstrings    (default bookshelf)
            --n 100,10k                object counts (default 10000)
            --inprocess                BenchmarkDotNet's in-process toolchain: no project generated and built per run
            --warmup-count W           fixed warm-up iterations (default: BenchmarkDotNet's automatic warm-up)
            --iteration-count I        fixed measured iterations (default: BenchmarkDotNet's, 15 to 100)
            --iteration-time-ms T      target time of one iteration (default 500)
            --artifacts DIR            BenchmarkDotNet's logs and reports (default: a folder under the temp dir)
          table --bdn F [--bdn F2 ...] --benchmark R [--benchmark R2 ...] [--out F]
                                       the side-by-side Markdown table of BdnComparison results and the
                                       benchmark's results.json files (one file per launch)
        """;
}
