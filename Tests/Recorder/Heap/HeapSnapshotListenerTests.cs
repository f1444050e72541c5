using System.IO.Pipes;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Heap;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Heap;

/// <summary>The recorder's side against a scripted benchmark: what it reports for snapshots that never came.</summary>
public sealed class HeapSnapshotListenerTests
{
    [Fact]
    public async Task Planned_snapshots_the_benchmark_never_reached_are_reported_as_not_reached()
    {
        var dir = Repo.NewTempDir("listener");
        try
        {
            await using var listener = HeapSnapshotListener.For(new HeapRequest(["A", "B"], 5), new TraceFolder(dir), progress: null)!;
            listener.Start(CancellationToken.None);
            Assert.Equal("--heap-pipe", listener.BenchmarkArguments[0]);
            using (var client = new NamedPipeClientStream(".", listener.PipeName, PipeDirection.InOut, PipeOptions.CurrentUserOnly))
            {
                await client.ConnectAsync(10_000);
                await using var writer = new StreamWriter(client) { AutoFlush = true, NewLine = "\n" };
                await writer.WriteLineAsync(HeapSnapshotProtocol.Serialize(new HeapSnapshotMessage
                {
                    Kind = HeapSnapshotProtocol.Plan,
                    ProcessId = Environment.ProcessId,
                    Planned = [new() { Serializer = "A", Data = "BookShelf", Objects = 5 }, new() { Serializer = "B", Data = "BookShelf", Objects = 5 }],
                }));
            } // the "benchmark" exits without reaching either point

            var outcomes = await listener.FinishAsync();
            Assert.Equal(["A", "B"], outcomes.Select(o => o.Serializer));
            Assert.All(outcomes, o =>
            {
                Assert.Equal(HeapSnapshotStatus.NotReached, o.Status);
                Assert.Equal(("BookShelf", 5), (o.Data, o.Objects));
                Assert.Contains("did not reach this snapshot point", o.Error, StringComparison.Ordinal);
            });
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task A_benchmark_that_never_connects_costs_a_second_and_is_named()
    {
        var dir = Repo.NewTempDir("listener");
        try
        {
            await using var listener = HeapSnapshotListener.For(new HeapRequest(["A"], 7), new TraceFolder(dir), progress: null)!;
            listener.Start(CancellationToken.None);
            var watch = System.Diagnostics.Stopwatch.StartNew();
            var outcome = Assert.Single(await listener.FinishAsync());
            Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"took {watch.Elapsed}");
            Assert.Equal((HeapSnapshotStatus.NotReached, 7), (outcome.Status!.Value, outcome.Objects));
            Assert.Contains("never connected", outcome.Error, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public void Too_little_disk_space_is_found_before_asking_for_the_dump()
    {
        var problem = HeapDumpProblems.BeforeDump(Path.Combine(Path.GetTempPath(), "x.dmp"), workingSetBytes: long.MaxValue / 4);
        Assert.NotNull(problem);
        Assert.StartsWith("not enough disk space for the dump", problem, StringComparison.Ordinal);
        Assert.Null(HeapDumpProblems.BeforeDump(Path.Combine(Path.GetTempPath(), "x.dmp"), workingSetBytes: 1 << 20));
    }
}
