using System.Diagnostics;
using EtwSerializerProfiler.Cli;
using EtwSerializerProfiler.Cli.Commands;

namespace EtwSerializerProfiler.Tests.Robustness;

/// <summary>What a user would see from one esp command: exit code, both streams, how long it took.</summary>
public sealed record VerbOutcome(string Verb, IReadOnlyList<string> Args, int ExitCode, string StdOut, string StdErr, TimeSpan Elapsed)
{
    /// <summary>Bytes the command allocated (the whole process's count; tests run one at a time).</summary>
    public long AllocatedBytes { get; init; }

    /// <summary>The command did not finish within the bound: a hang.</summary>
    public const int TimedOut = -1;

    public string CommandLine => $"esp {Verb} {string.Join(' ', Args)}";

    /// <summary>The lines esp itself prints as an error (progress and warnings are on stderr too, unprefixed).</summary>
    public IReadOnlyList<string> ErrorLines => [.. StdErr.Split('\n').Where(l => l.StartsWith($"esp {Verb}: ", StringComparison.Ordinal))];
}

/// <summary>
/// Runs esp's verbs inside the test process through the same CommandRunner the tool's Main uses, so the exception
/// to exit code mapping under test is the one users get, at a fraction of a process start per input (the corpus has
/// hundreds). Console output is redirected while a verb runs: tests run one at a time (AssemblyInfo.cs).
/// </summary>
public static class InProcessEsp
{
    private static readonly ICommand[] Verbs = [new AnalyzeVerb(), new StatsVerb(), new DiffVerb(), new HeapVerb(), new StackTagsVerb()];

    public static VerbOutcome Run(TimeSpan bound, string verb, params string[] args)
    {
        var command = Verbs.Single(v => v.Name == verb);
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var (savedOut, savedErr) = (Console.Out, Console.Error);
        var allocated = GC.GetTotalAllocatedBytes();
        var clock = Stopwatch.StartNew();
        Console.SetOut(TextWriter.Synchronized(stdout));
        Console.SetError(TextWriter.Synchronized(stderr));
        try
        {
            // On its own thread: a hang is reported as one, instead of hanging the test run.
            var run = Task.Run(() => CommandRunner.RunAsync(command, args, CancellationToken.None));
            var exit = run.Wait(bound) ? run.Result : VerbOutcome.TimedOut;
            return new VerbOutcome(verb, args, exit, stdout.ToString(), stderr.ToString(), clock.Elapsed) { AllocatedBytes = GC.GetTotalAllocatedBytes() - allocated };
        }
        finally
        {
            Console.SetOut(savedOut);
            Console.SetError(savedErr);
        }
    }
}
