using System.Diagnostics;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.Robustness;

/// <summary>
/// Every damaged input through every verb that reads it, in process: no unhandled exception, a documented exit code,
/// one line per error with no stack, and a bounded time. ESP_CORPUS_SCALE=N multiplies the random families (the
/// longer run of scripts/measure/damaged-inputs.sh); ESP_CORPUS_REPORT=FILE writes the counts there; ESP_CORPUS_ONLY
/// picks families.
/// </summary>
[EndToEnd]
[Collection(DamagedInputCollection.Name)]
public sealed class DamagedInputCorpusTests(DamagedInputSource source, ITestOutputHelper output)
{
    public const int Seed = 15;

    /// <summary>A verb reads these small inputs in well under a second; 60 s is a hang even on a loaded machine.</summary>
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    private static readonly int[] Documented = [ExitCodes.Ok, ExitCodes.Failed, ExitCodes.Usage, ExitCodes.BadInput];

    [Fact]
    public void No_damaged_input_crashes_hangs_or_exits_with_an_undocumented_code()
    {
        var scale = int.TryParse(Environment.GetEnvironmentVariable("ESP_CORPUS_SCALE"), out var s) && s > 0 ? s : 1;
        var clock = Stopwatch.StartNew();
        // Only what the report needs is kept: thousands of outputs would make the test's own memory the story.
        var outcomes = new List<(DamagedInput Input, VerbOutcome Outcome)>();
        var failures = new List<string>();
        // ESP_CORPUS_ONLY=family,family narrows a long run to some families (the counts check is then skipped).
        var only = Environment.GetEnvironmentVariable("ESP_CORPUS_ONLY")?.Split(',', StringSplitOptions.RemoveEmptyEntries);
        foreach (var input in new DamagedInputs(source, Seed, scale).All())
        {
            if (only is { Length: > 0 } && !only.Contains(input.Kind, StringComparer.Ordinal))
            {
                input.Cleanup?.Invoke();
                continue;
            }
            foreach (var call in input.Calls)
            {
                var outcome = InProcessEsp.Run(Bound, call[0], call[1..]);
                failures.AddRange(Problems(input, outcome));
                outcomes.Add((input, outcome with { StdOut = "", StdErr = "" }));
            }
            input.Cleanup?.Invoke();
        }

        var report = Report(outcomes, clock.Elapsed, scale);
        output.WriteLine(report);
        if (Environment.GetEnvironmentVariable("ESP_CORPUS_REPORT") is { Length: > 0 } file) File.WriteAllText(file, report);
        Assert.True(failures.Count == 0, $"{failures.Count} problem(s):\n{string.Join("\n", failures.Take(40))}");
        // The corpus is what it says: every family present, enough inputs to mean something.
        Assert.True(only is { Length: > 0 } || outcomes.Select(o => o.Input).Distinct().Count() >= 190 * scale, $"only {outcomes.Select(o => o.Input).Distinct().Count()} inputs");
    }

    /// <summary>What every input must give; then what this input in particular must.</summary>
    private static IEnumerable<string> Problems(DamagedInput input, VerbOutcome o)
    {
        var where = $"[{input.Kind}: {input.Name}] {o.CommandLine}";
        if (o.ExitCode == VerbOutcome.TimedOut) { yield return $"{where}: no answer within {Bound.TotalSeconds:F0} s"; yield break; }
        if (!Documented.Contains(o.ExitCode)) yield return $"{where}: exit {o.ExitCode}: {o.StdErr.Trim()}";
        if (o.StdErr.Contains("   at ", StringComparison.Ordinal) || o.StdErr.Contains("Unhandled exception", StringComparison.Ordinal))
            yield return $"{where}: a stack trace on stderr";
        if (o.ExitCode is ExitCodes.Usage or ExitCodes.BadInput && o.ErrorLines.Count != 1)
            yield return $"{where}: exit {o.ExitCode} with {o.ErrorLines.Count} error lines: {o.StdErr.Trim()}";
        string? expectation = null;
        try { input.Expect?.Invoke(o); }
        catch (Exception ex) when (ex is Xunit.Sdk.XunitException) { expectation = ex.Message.ReplaceLineEndings(" "); }
        if (expectation is not null) yield return $"{where}: {expectation}";
    }

    private static string Report(List<(DamagedInput Input, VerbOutcome Outcome)> outcomes, TimeSpan elapsed, int scale)
    {
        var table = new TextTable($"Damaged inputs (seed {Seed}, scale {scale}): exit codes per family and verb", ["Family", "Verb", "Inputs", "0", "1", "2", "3", "other", "Slowest s", "Total s"]);
        foreach (var g in outcomes.GroupBy(o => (o.Input.Kind, o.Outcome.Verb)).OrderBy(g => g.Key.Kind, StringComparer.Ordinal).ThenBy(g => g.Key.Verb, StringComparer.Ordinal))
        {
            int Count(int code) => g.Count(o => o.Outcome.ExitCode == code);
            table.AddRow(g.Key.Kind, g.Key.Verb, Fmt.Int(g.Count()), Fmt.Int(Count(0)), Fmt.Int(Count(1)), Fmt.Int(Count(2)), Fmt.Int(Count(3)),
                Fmt.Int(g.Count(o => !Documented.Contains(o.Outcome.ExitCode))), Fmt.Num(g.Max(o => o.Outcome.Elapsed.TotalSeconds), "F2"), Fmt.Num(g.Sum(o => o.Outcome.Elapsed.TotalSeconds)));
        }
        foreach (var (input, o) in outcomes.OrderByDescending(o => o.Outcome.Elapsed).Take(3))
            table.Notes.Add($"slowest: {o.Elapsed.TotalSeconds:F2} s, {input.Kind}: {input.Name}: esp {o.Verb} (exit {o.ExitCode})");
        foreach (var (input, o) in outcomes.OrderByDescending(o => o.Outcome.AllocatedBytes).Take(3))
            table.Notes.Add($"most allocated: {o.AllocatedBytes / 1048576.0:F0} MB, {input.Kind}: {input.Name}: esp {o.Verb} (exit {o.ExitCode})");
        var inputs = outcomes.Select(o => o.Input).Distinct().Count();
        using var self = Process.GetCurrentProcess();
        table.Notes.Add($"{inputs:N0} inputs, {outcomes.Count:N0} commands in {elapsed.TotalSeconds:F0} s ({self.TotalProcessorTime.TotalSeconds:F0} s CPU in the test process so far); peak working set {self.PeakWorkingSet64 / 1048576.0:F0} MB");
        return PlainText.Table(table);
    }
}
