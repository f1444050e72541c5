using System.Diagnostics;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Etw;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>
/// The exit handshake the ETW recorder uses to run the CLR rundown while the benchmark is still alive, with the real
/// benchmark on the recorder's real gate. Only the rundown itself (an ETW call) needs Windows; the holding does not.
/// </summary>
[EndToEnd]
public sealed class ExitHandshakeTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(2);

    private static Process StartBenchmark(RundownGate gate, params string[] extra)
    {
        var psi = new ProcessStartInfo("dotnet") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in new[] { Repo.BenchmarkDll, "--n", "10", "--warmup", "1", "--runs", "1", "--ops", "1", "--serializers", "Google.Protobuf", "--quiet" }.Concat(extra).Concat(gate.BenchmarkArguments))
            psi.ArgumentList.Add(a);
        return Process.Start(psi)!;
    }

    [Fact]
    public async Task The_benchmark_announces_its_exit_and_stays_alive_until_the_recorder_says_go()
    {
        var dir = Repo.NewTempDir("exit");
        try
        {
            var json = Path.Combine(dir, "results.json");
            await using var gate = new RundownGate();
            using var benchmark = StartBenchmark(gate, "--json", json);
            var stderr = benchmark.StandardError.ReadToEndAsync();
            _ = benchmark.StandardOutput.ReadToEndAsync();
            using var timeout = new CancellationTokenSource(Patience);

            var pid = await gate.WaitForExitingAsync(timeout.Token);

            Assert.Equal(benchmark.Id, pid);
            // Held: a benchmark that exits on its own here would be gone before any rundown could reach it.
            Assert.False(benchmark.WaitForExit(1500), "the benchmark exited without waiting for the recorder");
            // Everything is written before the hold, so a recorder that gives up loses nothing.
            Assert.Equal(4, BenchmarkResults.Load(json).Runs.Count);
            await gate.ReleaseAsync();
            Assert.True(benchmark.WaitForExit((int)Patience.TotalMilliseconds));
            Assert.Equal(ExitCodes.Ok, benchmark.ExitCode);
            Assert.DoesNotContain("warning", await stderr, StringComparison.OrdinalIgnoreCase);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task A_recorder_that_goes_away_without_go_lets_the_benchmark_exit_with_a_warning()
    {
        Process benchmark;
        Task<string> stderr;
        await using (var gate = new RundownGate())
        {
            benchmark = StartBenchmark(gate);
            stderr = benchmark.StandardError.ReadToEndAsync();
            _ = benchmark.StandardOutput.ReadToEndAsync();
            using var timeout = new CancellationTokenSource(Patience);
            Assert.Equal(benchmark.Id, await gate.WaitForExitingAsync(timeout.Token));
        }
        using (benchmark)
        {
            Assert.True(benchmark.WaitForExit((int)Patience.TotalMilliseconds));
            Assert.Equal(ExitCodes.Ok, benchmark.ExitCode);
            Assert.Contains("warning: the recorder closed the exit pipe without answering", await stderr, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_crashing_benchmark_never_announces_so_the_recorder_knows_there_is_nothing_to_run_down()
    {
        await using var gate = new RundownGate();
        using var benchmark = StartBenchmark(gate, "--fail-after-runs", "1");
        _ = benchmark.StandardError.ReadToEndAsync();
        _ = benchmark.StandardOutput.ReadToEndAsync();
        using var stop = new CancellationTokenSource();
        var exiting = gate.WaitForExitingAsync(stop.Token);
        var first = await Task.WhenAny(exiting, benchmark.WaitForExitAsync()).WaitAsync(Patience);
        Assert.NotSame(exiting, first);
        Assert.NotEqual(ExitCodes.Ok, benchmark.ExitCode);
        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => exiting);
    }

    [Theory]
    [InlineData("exiting 4242", 4242)]
    [InlineData("exiting", null)]
    [InlineData("exiting -1", null)]
    [InlineData("go", null)]
    [InlineData(null, null)]
    public void Only_an_exiting_line_with_a_process_id_counts(string? line, int? pid) => Assert.Equal(pid, ExitHandshake.ParseExiting(line));
}
