using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Launch;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp record --runtime 8.0,10.0 --launches 3 [--analyze]`: the recordings of <see cref="LaunchPlan"/>, one after the
/// other, each exactly as `esp record --runtime R --out DIR/R-N` would make it; then the diff command of the two
/// runtimes' launches, which --analyze runs (the first runtime is the baseline).
/// </summary>
public static class RecordLaunches
{
    public static async Task<int> RunAsync(RecordOptions options, IReadOnlyList<BenchmarkRuntime> runtimes, int launches, IConsole console, CancellationToken cancel)
    {
        if (options.Command.Count > 0) throw new UsageException("--runtime with several runtimes or --launches records the benchmark; with -- <command> record one launch at a time");
        foreach (var runtime in runtimes) _ = (options with { Runtime = runtime }).Validate();
        var parent = options.Out ?? Path.Combine("traces", DateTime.Now.ToString("yyyyMMdd-HHmmss", System.Globalization.CultureInfo.InvariantCulture));
        var plan = LaunchPlan.Plan(runtimes, launches, parent);
        foreach (var launch in plan)
        {
            if (File.Exists(Path.Combine(launch.Folder, TraceFolderLayout.Trace)))
                throw new UsageException($"{Path.GetFullPath(launch.Folder)} already holds a trace; choose another --out or delete it");
        }

        var exit = ExitCodes.Ok;
        foreach (var launch in plan)
        {
            cancel.ThrowIfCancellationRequested();
            console.Error.WriteLine($"launch {launch.Number} of {launches}, {(launch.Runtime is null ? "the SDK's runtime" : launch.Runtime.ToString())} -> {launch.Folder}");
            var one = options with { Runtime = launch.Runtime, Out = launch.Folder, Analyze = false };
            TraceFolder? folder;
            int code;
            using (var progress = console.StartProgress(live: false))
                (code, folder) = await RecordCommand.RunAsync(one, console.Out, progress, cancel).ConfigureAwait(false);
            if (code != ExitCodes.Ok && exit == ExitCodes.Ok) exit = code;
        }

        var diff = LaunchPlan.DiffArguments(plan);
        console.Out.WriteLine();
        console.Out.WriteLine($"Recorded {plan.Count} launches interleaved under {Path.GetFullPath(parent)}");
        if (diff.Count > 0) console.Out.WriteLine($"  compare: esp diff {string.Join(' ', diff)}");
        if (options.Analyze && diff.Count > 0 && exit == ExitCodes.Ok)
        {
            console.Out.WriteLine();
            exit = DiffVerb.Run(diff, TableFormat.Text, ReportTables.Compact, null, null, new AnalyzerOptions(), console, cancel);
        }
        return exit;
    }
}
