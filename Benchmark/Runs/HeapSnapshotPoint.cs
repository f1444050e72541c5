using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// The heap snapshot point (--heap): after a serializer's measured runs of the planned size, one more deserialize of
/// the same bytes, not measured, with the original graph and the result rooted in <see cref="HeapSnapshotRoots"/>
/// while the recorder writes the dump. GC.GetTotalMemory(true) before and after gives the in-process size that the
/// dump's graph walk is checked against.
/// </summary>
public sealed class HeapSnapshotPoint : IDisposable
{
    private readonly HeapSnapshotPlan _plan;
    private readonly IProgress<string>? _progress;
    private readonly HeapSnapshotChannel? _channel;
    private readonly string? _noRecorder;

    public HeapSnapshotPoint(HeapSnapshotPlan plan, string dataName, IProgress<string>? progress)
    {
        _plan = plan;
        _progress = progress;
        if (plan.Pipe is null)
        {
            _noRecorder = "no recorder: run through `esp record --heap` to write the dump; the in-process sizes are still measured";
            return;
        }
        _channel = HeapSnapshotChannel.Connect(plan.Pipe, HeapSnapshotProtocol.ConnectTimeout, out _noRecorder);
        _channel?.SendPlan([.. plan.Serializers.Select(s => new HeapSnapshotInfo { Serializer = s.Name, Data = dataName, Objects = plan.Objects })]);
        if (_noRecorder is not null) progress?.Report($"heap snapshots: {_noRecorder}");
    }

    public bool Wants(Serializer serializer, int count) => _plan.Wants(serializer, count);

    /// <summary>Builds the original graph between two full collections, so its in-process size is known.</summary>
    public static object CreateMeasured(Func<object> create, out long bytes)
    {
        var before = GC.GetTotalMemory(forceFullCollection: true);
        var data = create();
        bytes = GC.GetTotalMemory(forceFullCollection: true) - before;
        GC.KeepAlive(data);
        return data;
    }

    public HeapSnapshotInfo Take(Serializer serializer, string dataName, int count, int run, object original, long originalBytes, byte[] serialized, CancellationToken cancel)
    {
        var type = original.GetType();
        // Warm-up outside the measurement: first-use caches of the serializer (with --test serialize there was no
        // deserialize yet) and of this class would otherwise be counted as part of the graph.
        WarmUp(serializer, type, serialized);
        HeapSnapshotRoots.Release();

        var input = new MemoryStream(serialized, writable: false);
        var before = GC.GetTotalMemory(forceFullCollection: true);
        HeapSnapshotRoots.Hold(original, serializer.Deserialize(type, input));
        var after = GC.GetTotalMemory(forceFullCollection: true);
        GC.KeepAlive(input);

        var info = new HeapSnapshotInfo
        {
            Serializer = serializer.Name,
            Data = dataName,
            Objects = count,
            Run = run,
            SerializedBytes = serialized.Length,
            OriginalInProcessBytes = originalBytes,
            DeserializedInProcessBytes = after - before,
            ProcessId = Environment.ProcessId,
        };
        HeapSnapshotRoots.Describe(info);
        try
        {
            if (_channel is null) return info with { Status = HeapSnapshotStatus.NoRecorder, Error = _noRecorder };
            _progress?.Report($"  heap snapshot: {serializer.Name} N={count} held ({after - before} bytes in-process); waiting for the recorder's dump");
            var done = _channel.RequestSnapshot(info, _plan.Timeout, cancel);
            if (done.Status != HeapSnapshotStatus.Taken) _progress?.Report($"  heap snapshot failed: {done.Error}");
            return done;
        }
        finally
        {
            HeapSnapshotRoots.Release();
        }
    }

    // Not inlined: the warm-up's result must not stay reachable from a stack slot of Take during the measurement.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void WarmUp(Serializer serializer, Type type, byte[] bytes) =>
        GC.KeepAlive(serializer.Deserialize(type, new MemoryStream(bytes, writable: false)));

    public void Dispose() => _channel?.Dispose();
}
