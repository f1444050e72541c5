using System.CommandLine;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.EventBytes;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>`esp stats TRACE`: what a trace costs, by block, provider and event.</summary>
public static class StatsVerb
{
    public const string Name = "stats";

    public static Command Create(CommonOptions common, IConsole console)
    {
        var trace = new Argument<string>("TRACE") { Description = "a trace folder, .nettrace, .netperf or .zip" };
        var format = CommonOptions.Format(ReportKind.Stats);
        var command = new Command(Name, "what a trace costs: events and bytes per provider and event, share spent on stacks")
        {
            trace, format, common.Out,
        }.WithArgumentsMessage("stats needs exactly one TRACE");
        command.SetAction((parse, cancel) => CommandRunner.RunAsync(Name, console,
            () => Task.FromResult(Run(parse.GetValue(trace)!, parse.GetValue(format), parse.GetValue(common.Out), console)), cancel));
        return command;
    }

    public static int Run(string trace, TableFormat format, string? outPath, IConsole console)
    {
        var plan = Exporters.Select(ReportKind.Stats, format, outPath);
        using var input = TraceInput.Open(trace);
        if (input.Format != TraceFormat.NetTrace) throw new UsageException("stats reads .nettrace traces (ETW statistics: use WPA's Trace Statistics)");
        TraceStatistics stats;
        using (var progress = console.StartProgress(live: true)) stats = TraceStatistics.Compute(input.TracePath, progress);
        plan.ExportReport(StatsReport.Document(stats), console.Out, new LineProgress(console.Error));
        return ExitCodes.Ok;
    }
}
