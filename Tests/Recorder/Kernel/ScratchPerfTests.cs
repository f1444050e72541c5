using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Kernel;

/// <summary>
/// --tracing-cost's traced blocks share one perf (<see cref="ScratchPerf"/>): it records in each block and nothing
/// between them, and it ends with the blocks. Read from its own file with perf script, on a process that spins.
/// </summary>
[EndToEnd]
public sealed partial class ScratchPerfTests : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("scratch-perf");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [PlatformFact("Linux", "the kernel session is perf's")]
    public async Task One_perf_records_each_block_and_nothing_between_them()
    {
        Assert.True(PerfTool.Locate() is not null, PerfTool.NotFoundReason());
        var perf = PerfProbe.Check(PerfEventPlan.For(ProfileCatalog.Get("default")));
        Assert.True(perf.Usable, string.Join("; ", perf.Missing));
        var data = Path.Combine(_dir, "scratch.perf.data");
        using var spinner = Process.Start(new ProcessStartInfo("sh", ["-c", "while :; do :; done"]))!;
        try
        {
            var scratch = new ScratchPerf(perf, progress: null) { KeepAt = data };
            var blocks = new List<(double From, double To)>();
            var untraced = new List<(double From, double To)>();
            var perfIds = new List<IReadOnlyList<int>>();
            for (var i = 0; i < 3; i++)
            {
                var block = await scratch.BlockAsync(spinner.Id, CancellationToken.None);
                Assert.NotNull(block);
                var from = Now();
                perfIds.Add(KernelSessionFaultTests.PerfProcessesFor(data));
                await Task.Delay(300);
                blocks.Add((from, Now()));
                await block.DisposeAsync();
                var off = Now();
                await Task.Delay(500);
                untraced.Add((off, Now())); // as the benchmark's untraced block: after the recorder's reply, before it asks again
            }
            await scratch.EndAsync();

            // One perf for the three blocks, gone with EndAsync.
            Assert.Single(perfIds.SelectMany(p => p).Distinct());
            Assert.Empty(KernelSessionFaultTests.PerfProcessesFor(data));

            // No sample between the disable's ack and the next enable: the untraced blocks pay nothing.
            var samples = Samples(data);
            var between = samples.Where(t => untraced.Any(u => t >= u.From && t <= u.To)).ToList();
            Assert.True(between.Count == 0, $"{between.Count} of {samples.Count} samples between the blocks, e.g. {between.FirstOrDefault():F3} s; untraced {string.Join(", ", untraced.Select(u => $"{u.From:F3}-{u.To:F3}"))}");
            // A spinning thread in a 300 ms block at 1-2 ms: at least a few dozen samples in every block.
            Assert.All(blocks, b => Assert.True(samples.Count(t => t >= b.From && t <= b.To) >= 30, $"few samples in the block {b.From:F3}-{b.To:F3}: {samples.Count} in all"));
        }
        finally
        {
            spinner.Kill();
            spinner.WaitForExit();
        }
    }

    /// <summary>CLOCK_MONOTONIC in seconds, perf's -k clock (Stopwatch's source on Linux).</summary>
    private static double Now() => Stopwatch.GetTimestamp() / (double)Stopwatch.Frequency;

    private static List<double> Samples(string data)
    {
        var r = ProcessRunner.Run(PerfTool.Locate()!, ["script", "-i", data, "--ns", "-F", "time,event"]);
        Assert.True(r.ExitCode == 0, r.StdErr);
        return [.. r.StdOut.Split('\n').Select(l => SampleLine().Match(l)).Where(m => m.Success).Select(m => double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture))];
    }

    [GeneratedRegex(@"^\s*(\d+\.\d+):\s+cpu-clock")]
    private static partial Regex SampleLine();
}
