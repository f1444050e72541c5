using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Commands;

namespace EtwSerializerProfiler.Cli.Commands;

public sealed class RecordVerb : ICommand
{
    public string Name => "record";
    public string Summary => "trace the serializer benchmark (or -- any .NET command) into a trace folder";

    public async Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var options = RecordOptions.Parse(args);
        var (exit, folder) = await RecordCommand.RunAsync(options, Console.Out, CommandRunner.StderrProgress, cancel).ConfigureAwait(false);
        if (options.Analyze && folder is not null && (File.Exists(folder.Trace) || File.Exists(folder.Etl)))
        {
            Console.WriteLine();
            var analyzeExit = await new AnalyzeVerb().RunAsync([folder.Path], CancellationToken.None).ConfigureAwait(false);
            if (exit == ExitCodes.Ok) exit = analyzeExit;
        }
        return exit;
    }
}
