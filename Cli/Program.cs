using EtwSerializerProfiler.Cli;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;

// One handler per verb; each lives in Commands/ and owns its options.
var verbs = new ICommand[]
{
    new RecordVerb(),
    new AnalyzeVerb(),
    new DiffVerb(),
    new StatsVerb(),
    new HeapVerb(),
    new StackTagsVerb(),
    new ScriptsVerb(),
    new CleanupVerb(),
};

if (args.Length == 0 || args[0] is "-h" or "--help" or "help")
{
    Console.WriteLine("esp: record and analyze .NET serializer traces (EtwSerializerProfiler)\n");
    foreach (var v in verbs) Console.WriteLine($"  esp {v.Name,-10} {v.Summary}");
    Console.WriteLine("\nesp <command> --help for the options of a command.");
    return args.Length == 0 ? ExitCodes.Usage : ExitCodes.Ok;
}

var verb = verbs.FirstOrDefault(v => v.Name.Equals(args[0], StringComparison.OrdinalIgnoreCase));
if (verb is null)
{
    Console.Error.WriteLine($"esp: unknown command '{args[0]}'; commands: {string.Join(", ", verbs.Select(v => v.Name))}");
    return ExitCodes.Usage;
}

// An esp that was killed could not remove its temp sockets and conversions: whatever a dead esp left goes now.
EspTempFiles.SweepStale();

using var cancel = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    // First Ctrl+C: stop cleanly (sessions stopped, files flushed). A second one kills the tool.
    if (cancel.IsCancellationRequested) return;
    e.Cancel = true;
    cancel.Cancel();
};
return await CommandRunner.RunAsync(verb, args[1..], cancel.Token);
