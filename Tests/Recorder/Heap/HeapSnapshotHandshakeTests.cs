using System.Diagnostics;
using System.IO.Pipes;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Recorder.Heap;

/// <summary>
/// The benchmark's side of the handshake against a scripted recorder: it never waits longer than its timeout, does
/// not mistake a stale reply for the current one, and goes on when the recorder is gone.
/// </summary>
public sealed class HeapSnapshotHandshakeTests
{
    private static readonly HeapSnapshotInfo Point = new() { Serializer = "Reflection", Data = "BookShelf", Objects = 10, Run = 1 };

    private sealed class ScriptedRecorder : IDisposable
    {
        public string Name { get; } = $"esp-heap-test-{Guid.NewGuid():N}";
        public NamedPipeServerStream Server { get; }
        public StreamReader? Reader { get; private set; }
        public StreamWriter? Writer { get; private set; }
        private readonly Task _connected;

        public ScriptedRecorder()
        {
            Server = new NamedPipeServerStream(Name, PipeDirection.InOut, 1, PipeTransmissionMode.Byte, PipeOptions.Asynchronous | PipeOptions.CurrentUserOnly);
            _connected = Server.WaitForConnectionAsync();
        }

        public HeapSnapshotChannel Connect()
        {
            var channel = HeapSnapshotChannel.Connect(Name, TimeSpan.FromSeconds(10), out var error) ?? throw new InvalidOperationException(error);
            _connected.Wait(TimeSpan.FromSeconds(10));
            // Only now: an AutoFlush writer flushes when created, which fails on a pipe that is not connected yet.
            Reader = new StreamReader(Server, leaveOpen: true);
            Writer = new StreamWriter(Server, leaveOpen: true) { AutoFlush = true, NewLine = "\n" };
            return channel;
        }

        public HeapSnapshotMessage Receive() => HeapSnapshotProtocol.Deserialize<HeapSnapshotMessage>(Reader!.ReadLine()!);

        public void Reply(int sequence, HeapSnapshotInfo snapshot) =>
            Writer!.WriteLine(HeapSnapshotProtocol.Serialize(new HeapSnapshotMessage { Kind = HeapSnapshotProtocol.Done, Sequence = sequence, Snapshot = snapshot }));

        public void Dispose()
        {
            try { Writer?.Dispose(); } catch (IOException) { } // the other end closed first
            Reader?.Dispose();
            Server.Dispose();
        }
    }

    [Fact]
    public async Task A_reply_is_matched_by_sequence_and_carries_the_outcome()
    {
        using var recorder = new ScriptedRecorder();
        using var channel = recorder.Connect();
        channel.SendPlan([Point]);
        var reply = Task.Run(() =>
        {
            var plan = recorder.Receive();
            Assert.Equal(HeapSnapshotProtocol.Plan, plan.Kind);
            Assert.Equal(Environment.ProcessId, plan.ProcessId);
            Assert.False(string.IsNullOrEmpty(plan.RuntimeDirectory));
            var ready = recorder.Receive();
            Assert.Equal(HeapSnapshotProtocol.Ready, ready.Kind);
            Assert.True(ready.WorkingSetBytes > 0);
            recorder.Reply(ready.Sequence + 100, ready.Snapshot! with { Status = HeapSnapshotStatus.Failed, Error = "stale" });
            recorder.Reply(ready.Sequence, ready.Snapshot! with { Status = HeapSnapshotStatus.Taken, File = "x.dmp" });
        });

        var done = channel.RequestSnapshot(Point, TimeSpan.FromSeconds(30));
        await reply;
        Assert.Equal(HeapSnapshotStatus.Taken, done.Status);
        Assert.Equal("x.dmp", done.File);
    }

    [Fact]
    public void A_recorder_that_never_answers_costs_the_timeout_once_and_then_nothing()
    {
        using var recorder = new ScriptedRecorder();
        using var channel = recorder.Connect();
        var watch = Stopwatch.StartNew();
        var first = channel.RequestSnapshot(Point, TimeSpan.FromSeconds(1));
        var firstTook = watch.Elapsed;
        Assert.Equal(HeapSnapshotStatus.Failed, first.Status);
        Assert.Contains("did not answer within 1 s", first.Error, StringComparison.Ordinal);
        Assert.InRange(firstTook.TotalSeconds, 0.9, 20);

        watch.Restart();
        var second = channel.RequestSnapshot(Point with { Serializer = "Google.Protobuf" }, TimeSpan.FromSeconds(30));
        Assert.Equal(HeapSnapshotStatus.Failed, second.Status);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(5), "a broken channel must not wait again");
    }

    [Fact]
    public void A_recorder_that_goes_away_releases_the_benchmark_at_once()
    {
        var recorder = new ScriptedRecorder();
        using var channel = recorder.Connect();
        recorder.Dispose();
        var watch = Stopwatch.StartNew();
        var done = channel.RequestSnapshot(Point, TimeSpan.FromSeconds(60));
        Assert.Equal(HeapSnapshotStatus.Failed, done.Status);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"took {watch.Elapsed}");
    }

    [Fact]
    public void Ctrl_C_ends_the_wait_without_the_timeout()
    {
        using var recorder = new ScriptedRecorder();
        using var channel = recorder.Connect();
        using var interrupt = new CancellationTokenSource(TimeSpan.FromMilliseconds(300));
        var watch = Stopwatch.StartNew();
        var done = channel.RequestSnapshot(Point, TimeSpan.FromMinutes(5), interrupt.Token);
        Assert.Equal("interrupted while waiting for the dump", done.Error);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"took {watch.Elapsed}");
    }

    [Fact]
    public void No_recorder_listening_is_reported_not_waited_for()
    {
        var channel = HeapSnapshotChannel.Connect($"esp-heap-nobody-{Guid.NewGuid():N}", TimeSpan.FromMilliseconds(300), out var error);
        Assert.Null(channel);
        Assert.Contains("could not connect to the recorder's pipe", error, StringComparison.Ordinal);
    }
}
