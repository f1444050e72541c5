using System.CommandLine;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Heap;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>`esp analyze TRACE`: per-serializer tables, findings, and on request HTML and flame graphs.</summary>
public static class AnalyzeVerb
{
    public const string Name = "analyze";

    /// <summary>What one analysis is asked to do; `esp record --analyze` runs it with the defaults.</summary>
    public sealed record Settings(string Trace)
    {
        public TableFormat Format { get; init; } = Exporters.DefaultFormat;
        public string? Out { get; init; }
        public int Top { get; init; }
        /// <summary>Which tables (--tables); null: compact on the terminal's text, all in every other format.</summary>
        public ReportTables? Tables { get; init; }
        /// <summary>--n: only the cases of this N (0: all).</summary>
        public int Objects { get; init; }
        public string? Html { get; init; }
        public string? Speedscope { get; init; }
        public string? Firefox { get; init; }
        public AnalyzerOptions Options { get; init; } = new();
    }

    public static Command Create(CommonOptions common, IConsole console)
    {
        var trace = new Argument<string>("TRACE") { Description = "a trace folder, .nettrace, .netperf or .zip (or .etl on Windows)" };
        var format = CommonOptions.Format(ReportKind.Analysis);
        var top = OptionTypes.Int("--top", "the N hottest methods per case (with --serializers); without runs, over the whole trace", 0, min: 0, max: 10_000);
        var objects = OptionTypes.Int("--n", "only the cases of this N (object count)", 0, min: 0, max: int.MaxValue);
        var noCache = new Option<bool>("--no-cache") { Description = "do not keep TRACE.etlx beside the trace (--etlx, or a damaged trace)" };
        var etlx = new Option<bool>("--etlx") { Description = "read an EventPipe trace through TraceEvent's .etlx conversion, as .etl traces are: slower, the same figures; lock takers and throw sites from the side files show as ?" };
        var noKernel = new Option<bool>("--no-kernel") { Description = "ignore the trace folder's kernel session: CPU from EventPipe's sampler only" };
        var speedscope = new Option<string?>(SpeedscopeExporter.Option)
        {
            Description = "also write one speedscope flame graph file per serializer, operation and N into DIR",
            HelpName = "DIR",
        };
        var firefox = new Option<string?>(FirefoxExporter.Option)
        {
            Description = "also write the whole trace as a Firefox Profiler profile to F (gzipped JSON, e.g. trace.json.gz; docs/report.md)",
            HelpName = "F",
        };
        var command = new Command(Name, "per-serializer CPU, GC, allocations, reflection/Activator, exceptions, contention and JIT from a trace, and findings")
        {
            trace, format, common.Out, common.Serializers,
        }.WithArgumentsMessage("analyze needs exactly one TRACE (folder, .nettrace, .zip or .etl)");
        common.AddStackTags(command);
        foreach (var option in new Option[] { top, common.Tables, objects, noCache, etlx, noKernel, common.Symbols, common.Html, speedscope, firefox }) command.Options.Add(option);

        command.SetAction((parse, cancel) => CommandRunner.RunAsync(Name, console, () =>
        {
            var settings = new Settings(parse.GetValue(trace)!)
            {
                Format = parse.GetValue(format),
                Out = parse.GetValue(common.Out),
                Top = parse.GetValue(top),
                Tables = common.TablesOf(parse, parse.GetValue(format)),
                Objects = parse.GetValue(objects),
                Html = parse.GetValue(common.Html),
                Speedscope = parse.GetValue(speedscope),
                Firefox = parse.GetValue(firefox),
                Options = new AnalyzerOptions
                {
                    Serializers = parse.GetValue(common.Serializers)!,
                    StackTagsPaths = parse.GetValue(common.StackTags)!,
                    StackTagsOnly = parse.GetValue(common.StackTagsOnly),
                    CollectHotMethods = parse.GetValue(top) > 0,
                    CacheEtlx = !parse.GetValue(noCache),
                    ThroughTraceLog = parse.GetValue(etlx),
                    UseKernelSession = !parse.GetValue(noKernel),
                    SymbolFolders = parse.GetValue(common.Symbols)!,
                },
            };
            return Task.FromResult(Run(settings, console));
        }, cancel));
        return command;
    }

    public static int Run(Settings settings, IConsole console)
    {
        var plan = Exporters.Select(ReportKind.Analysis, settings.Format, settings.Out, settings.Html, settings.Speedscope, settings.Firefox);
        // The page opens each case with its hot methods, so --html collects them (about 2% more time) even without --top.
        var options = settings.Options with { KeepChargedSamples = plan.WritesFiles, KeepMarks = plan.WritesTimeLine, CollectHotMethods = settings.Options.CollectHotMethods || settings.Html is not null };
        using var input = TraceInput.Open(settings.Trace);
        TraceAnalysis analysis;
        ReportDocument report;
        RunStacks? stacks = null;
        using (var progress = console.StartProgress(live: true))
        {
            analysis = new TraceAnalyzer(options).Analyze(input, progress);
            if (settings.Objects > 0) analysis = analysis.OfObjects(settings.Objects);
            if (plan.WritesFiles)
            {
                plan.PrepareFolders();
                stacks = RunStackCollector.Collect(analysis, progress, settings.Speedscope, settings.Firefox);
            }
            report = AnalysisReport.Document(analysis, settings.Top, stacks, settings.Tables ?? ReportTablesDefault.For(settings.Format));
            plan.ExportFiles(report, progress);
        }
        if (Directory.Exists(settings.Trace) && Directory.EnumerateFiles(settings.Trace, TraceFolderLayout.HeapDumpPattern).Count() is var dumps and > 0)
            console.Error.WriteLine($"note: this folder also holds {dumps} heap snapshot(s): esp heap {settings.Trace}");
        plan.ExportReport(report, console.Out, new LineProgress(console.Error));
        // A trace that was read is a result, runs or not (without runs it is analyzed whole, per thread); only runs asked
        // for by name and not found are a failure.
        return (options.Serializers.Count > 0 || settings.Objects > 0) && analysis.Runs.Count == 0 ? ExitCodes.Failed : ExitCodes.Ok;
    }
}
