using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Heap;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Output;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Report;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

public sealed class AnalyzeVerb : ICommand
{
    public string Name => "analyze";
    public string Summary => "per-serializer CPU, GC, allocation, reflection/Activator, exceptions, contention, JIT from a trace";

    private const string Usage = """
        esp analyze TRACE [options]      TRACE: trace folder, .nettrace, .netperf, .zip (or .etl on Windows)

          --format text|csv|json|markdown   output format (default text)
          --out F                           write to F instead of the terminal
          --serializers a,b                 only these serializers
          --stacktags F                     add a stack tags file to the built-in serializer tags (the trace
                                            folder's copy, else the tool's); repeatable; tags matching nothing are reported
          --stacktags-only                  use only the --stacktags file(s), not the built-in serializer tags
          --top N                           hottest methods per serializer/operation (use with --serializers)
          --no-cache                        do not keep TRACE.etlx next to the trace (it makes a second analysis fast)
          --no-kernel                       ignore the trace folder's kernel session: CPU from EventPipe's sampler only
          --html F                          also write a self-contained HTML report with charts and call trees (docs/report.md)
          --speedscope DIR                  also write one speedscope flame graph file per serializer and operation
        """;

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var r = new ArgReader(args, new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "help", "h", "no-cache", "no-kernel", StackTagArgs.OnlyFlag });
        if (r.Flag("help") || r.Flag("h")) { Console.WriteLine(Usage); return Task.FromResult(ExitCodes.Ok); }
        var format = r.Enum("format", TableFormat.Text);
        var outPath = r.String("out");
        var top = r.Int("top", 0, min: 0, max: 10_000);
        var htmlPath = r.String("html");
        var speedscopeDir = r.String("speedscope");
        var stackTags = StackTagArgs.Read(r);
        var options = new AnalyzerOptions
        {
            Serializers = r.List("serializers"),
            StackTagsPaths = stackTags.Paths,
            StackTagsOnly = stackTags.Only,
            CollectHotMethods = top > 0,
            CacheEtlx = !r.Flag("no-cache"),
            UseKernelSession = !r.Flag("no-kernel"),
        };
        r.RejectUnknown("analyze");
        StackTagArgs.Validate(options);
        if (r.Positional.Count != 1) throw new UsageException("analyze needs exactly one TRACE (folder, .nettrace, .zip or .etl)");

        using var input = TraceInput.Open(r.Positional[0]);
        var analysis = new TraceAnalyzer(options).Analyze(input, CommandRunner.StderrProgress);
        if (options.Serializers.Count > 0 && analysis.Runs.Count == 0)
            analysis.Warnings.Add($"no runs of {string.Join(", ", options.Serializers)} in this trace");
        if (htmlPath is not null || speedscopeDir is not null)
            ReportExport.Write(input, analysis, options, htmlPath, speedscopeDir, progress: CommandRunner.StderrProgress);
        var text = AnalysisReport.Render(analysis, format, top);
        if (Directory.Exists(r.Positional[0]) && Directory.EnumerateFiles(r.Positional[0], HeapSnapshotInput.DumpPattern).Count() is var dumps and > 0)
            Console.Error.WriteLine($"note: this folder also holds {dumps} heap snapshot(s): esp heap {r.Positional[0]}");
        if (outPath is null) Console.Write(text);
        else
        {
            File.WriteAllText(outPath, text);
            Console.Error.WriteLine($"wrote {outPath}");
        }
        // A trace that was read is a result, runs or not (without runs it is analyzed whole, per thread); only runs asked
        // for by name and not found are a failure.
        return Task.FromResult(options.Serializers.Count > 0 && analysis.Runs.Count == 0 ? ExitCodes.Failed : ExitCodes.Ok);
    }
}
