using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Stats;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

public sealed class StatsVerb : ICommand
{
    public string Name => "stats";
    public string Summary => "what a trace costs: events and bytes per provider and event, share spent on stacks";

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var r = new ArgReader(args, new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "help", "h" });
        if (r.Flag("help") || r.Flag("h")) { Console.WriteLine("esp stats TRACE [--format text|csv|markdown] [--out F]"); return Task.FromResult(ExitCodes.Ok); }
        var format = r.Enum("format", TableFormat.Text);
        var outPath = r.String("out");
        r.RejectUnknown("stats");
        if (r.Positional.Count != 1) throw new UsageException("stats needs exactly one TRACE");
        if (format == TableFormat.Json) throw new UsageException("stats supports --format text, csv or markdown");
        using var input = TraceInput.Open(r.Positional[0]);
        if (input.Format != TraceFormat.NetTrace) throw new UsageException("stats reads .nettrace traces (ETW statistics: use WPA's Trace Statistics)");
        var stats = TraceStatistics.Compute(input.TracePath, CommandRunner.StderrProgress);
        var text = string.Concat(stats.Tables().Select(t => t.Render(format) + Environment.NewLine));
        if (outPath is null) Console.Write(text); else File.WriteAllText(outPath, text);
        return Task.FromResult(ExitCodes.Ok);
    }
}
