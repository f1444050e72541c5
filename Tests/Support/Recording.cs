using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Launch;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>Records the real benchmark through the same code path as `esp record`.</summary>
public static class Recording
{
    public static async Task<(int ExitCode, TraceFolder Folder, string Output)> RecordAsync(string outDir, IEnumerable<string> args, CancellationToken cancel = default)
    {
        FastRun.RefuseSlowWork("recording a trace");
        var options = RecordVerb.Parse(["--out", outDir, .. args]);
        var output = new StringWriter();
        var (exit, folder) = await RecordCommand.RunAsync(options, output, new Progress<string>(_ => { }), cancel);
        return (exit, folder ?? throw new InvalidOperationException("no trace folder"), output.ToString());
    }

    public static (int ExitCode, TraceFolder Folder) Record(string outDir, params string[] args)
    {
        var (exit, folder, _) = RecordAsync(outDir, args).GetAwaiter().GetResult();
        return (exit, folder);
    }

    public static BenchmarkResults Results(TraceFolder folder) => BenchmarkResults.Load(folder.ResultsJson);
}
