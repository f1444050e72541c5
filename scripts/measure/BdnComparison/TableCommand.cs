using System.Text.Json;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>`table`: reads every launch's results of both sides and writes the Markdown comparison.</summary>
public static class TableCommand
{
    public static int Run(IReadOnlyList<string> args, TextWriter stdout)
    {
        var r = new ArgReader(args, new HashSet<string>());
        if (r.Positional.Count > 0) throw new UsageException($"table: unexpected argument '{r.Positional[0]}' (options start with --)");
        var bdnPaths = r.Strings("bdn");
        var benchmarkPaths = r.Strings("benchmark");
        var output = r.String("out");
        r.RejectUnknown("table");
        if (bdnPaths.Count == 0 && benchmarkPaths.Count == 0) throw new UsageException("table: give --bdn and --benchmark result files");

        var bdn = bdnPaths.Select(p => BdnResults.Load(Existing(p))).ToList();
        var benchmark = benchmarkPaths.Select(p => LoadBenchmark(Existing(p))).ToList();
        var table = ComparisonTable.Build(bdn, benchmark);
        if (table.Rows.Count == 0) throw new BadInputException("table: no measured case in any of the files (BenchmarkDotNet cases or runs with warmup = false)");
        var markdown = Markdown.Table(table);
        if (output is null) stdout.Write(markdown);
        else File.WriteAllText(output, markdown);
        return ExitCodes.Ok;
    }

    private static string Existing(string path) =>
        File.Exists(path) ? path : throw new UsageException($"table: no such file: {path}");

    private static BenchmarkResults LoadBenchmark(string path)
    {
        try
        {
            return BenchmarkResults.Load(path);
        }
        catch (Exception ex) when (ex is JsonException or InvalidDataException)
        {
            throw new BadInputException($"{path}: not a benchmark results.json ({ex.Message})", ex);
        }
    }
}
