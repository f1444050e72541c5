using System.Diagnostics;
using EtwSerializerProfiler.Cli;
using EtwSerializerProfiler.Tests.Support;

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
/// Runs esp's command line inside the test process, as the tool's Main does (EspCommandLine: parsing, the verb,
/// CommandRunner's exception to exit code mapping) but on a captured console, so the outcome under test is the one
/// users get, at a fraction of a process start per input (the corpus has hundreds).
/// </summary>
public static class InProcessEsp
{
    public static VerbOutcome Run(TimeSpan bound, string verb, params string[] args)
    {
        var console = new CapturedConsole();
        var allocated = GC.GetTotalAllocatedBytes();
        var clock = Stopwatch.StartNew();
        // On its own thread: a hang is reported as one, instead of hanging the test run.
        var run = Task.Run(() => EspCommandLine.InvokeAsync([verb, .. args], console, CancellationToken.None));
        var exit = run.Wait(bound) ? run.Result : VerbOutcome.TimedOut;
        return new VerbOutcome(verb, args, exit, console.StdOut, console.StdErr, clock.Elapsed) { AllocatedBytes = GC.GetTotalAllocatedBytes() - allocated };
    }
}
