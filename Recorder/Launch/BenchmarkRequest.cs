using EtwSerializerProfiler.Recorder.Heap;

namespace EtwSerializerProfiler.Recorder.Launch;

/// <summary>
/// What the recorder needs to know of the benchmark's arguments, taken from the benchmark's own parse of them
/// (Cli's RecordVerb runs BenchmarkOptions.Parse before anything starts) instead of re-reading the tokens. The
/// tokens themselves still go to the benchmark unchanged (<see cref="RecordOptions.BenchmarkArgs"/>).
/// </summary>
public sealed record BenchmarkRequest
{
    /// <summary>Recording a command (`-- cmd`), or nothing parsed: no option of the benchmark's applies.</summary>
    public static readonly BenchmarkRequest None = new();

    /// <summary>--test firstcall: one serializer per fresh process.</summary>
    public bool FirstCall { get; init; }
    /// <summary>--serializers, by name; empty for every serializer.</summary>
    public IReadOnlyList<string> Serializers { get; init; } = [];
    /// <summary>--appcontext Name=true|false, in order.</summary>
    public IReadOnlyList<KeyValuePair<string, bool>> AppContextSwitches { get; init; } = [];
    /// <summary>--heap: the snapshots the benchmark will ask the recorder for.</summary>
    public HeapRequest? Heap { get; init; }
    /// <summary>Options the recorder sets for the benchmark that the arguments give too (--json, --csv, --heap-pipe, --heap-timeout).</summary>
    public IReadOnlyList<string> RecorderOwned { get; init; } = [];
}
