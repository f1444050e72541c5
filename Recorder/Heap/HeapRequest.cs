using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Heap;

/// <summary>
/// What `esp record --heap ...` asked for (the benchmark owns and validates --heap and --heap-objects; the recorder
/// only needs to know that snapshots are wanted, and which, in case the benchmark never gets far enough to say so
/// itself). Filled from the benchmark's own parse (Commands/BenchmarkRequest).
/// </summary>
public sealed record HeapRequest(IReadOnlyList<string> Serializers, int Objects)
{
    /// <summary>Options the recorder sets for the benchmark; a user passing them would break the handshake.</summary>
    public static readonly IReadOnlyList<string> RecorderOwned = [BenchmarkArgs.HeapPipeFlag, BenchmarkArgs.HeapTimeoutFlag];
}
