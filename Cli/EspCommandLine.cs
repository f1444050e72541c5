using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli;

/// <summary>
/// The esp command line, as dotnet-trace's Program.cs composes its own: one command per verb (Commands/), the options
/// several share declared once (CommonOptions), System.CommandLine for parsing, help (-h, --help, -?), response files
/// (@file) and tab completion. Runs in any process: the tool's Main, or a test with a captured console.
/// </summary>
public static class EspCommandLine
{
    public const string Description = """
        esp: record and analyze .NET serializer traces (EtwSerializerProfiler): why is this serializer slow, and where
        does its time go.

          esp record --analyze          record the quick benchmark (every serializer), then print the analysis
          esp analyze traces/<folder>   per-serializer tables and findings of a recording
          esp diff BASELINE TRACE       what changed between two recordings, beyond run-to-run noise

        esp <command> --help lists a command's options; docs/ in the repository has the rest.
        """;

    /// <summary>Not a command: `esp help [COMMAND]` is `esp [COMMAND] --help`.</summary>
    public const string HelpVerb = "help";

    public static RootCommand Create(IConsole console)
    {
        var common = new CommonOptions();
        var root = new RootCommand(Description)
        {
            RecordVerb.Create(common, console),
            AnalyzeVerb.Create(common, console),
            DiffVerb.Create(common, console),
            StatsVerb.Create(common, console),
            HeapVerb.Create(common, console),
            StackTagsVerb.Create(console),
            ScriptsVerb.Create(common, console),
            CleanupVerb.Create(console),
        };
        var help = root.Options.OfType<HelpOption>().Single();
        var builtIn = (HelpAction)help.Action!;
        builtIn.MaxWidth = console.Width;
        help.Action = new EpilogueHelpAction(builtIn, new Dictionary<string, string>
        {
            [RecordVerb.Name] = RecordVerb.Epilogue,
            [DiffVerb.Name] = DiffVerb.Epilogue,
        });
        return root;
    }

    /// <summary>Parses and runs one command line; the exit code is one of <see cref="ExitCodes"/>.</summary>
    public static async Task<int> InvokeAsync(IReadOnlyList<string> args, IConsole console, CancellationToken cancel)
    {
        var root = Create(console);
        var configuration = new InvocationConfiguration
        {
            Output = console.Out,
            Error = console.Error,
            // Ctrl+C is the caller's (Program.cs): a recording needs longer than a fixed timeout to stop its sessions.
            ProcessTerminationTimeout = null,
            // Every verb maps its own exceptions to one line and an exit code (CommandRunner).
            EnableDefaultExceptionHandler = false,
        };
        if (args.Count == 0)
        {
            // As before System.CommandLine: the overview, and the exit code of a usage error (a script forgot the verb).
            await root.Parse(["--help"]).InvokeAsync(configuration, cancel).ConfigureAwait(false);
            return ExitCodes.Usage;
        }
        // `esp help` and `esp help analyze` are --help, as they were before System.CommandLine.
        if (args[0] == HelpVerb) args = [.. args.Skip(1), "--help"];
        var result = root.Parse(args);
        if (UsageErrors.Find(result) is { } error)
        {
            console.Error.WriteLine(error.Line);
            return ExitCodes.Usage;
        }
        return await result.InvokeAsync(configuration, cancel).ConfigureAwait(false);
    }

    /// <summary>System.CommandLine's help, then the command's own closing text (what it passes on, how it decides).</summary>
    private sealed class EpilogueHelpAction(HelpAction help, IReadOnlyDictionary<string, string> epilogues) : SynchronousCommandLineAction
    {
        public override int Invoke(ParseResult parseResult)
        {
            var exit = help.Invoke(parseResult);
            if (epilogues.TryGetValue(parseResult.CommandResult.Command.Name, out var epilogue) && parseResult.CommandResult.Parent is CommandResult { Parent: null })
                parseResult.InvocationConfiguration.Output.WriteLine(epilogue);
            return exit;
        }
    }
}
