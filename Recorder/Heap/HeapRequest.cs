using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Heap;

/// <summary>
/// What `esp record --heap ...` asked for, read from the benchmark arguments (the benchmark owns and validates
/// --heap and --heap-objects; the recorder only needs to know that snapshots are wanted, and which, in case the
/// benchmark never gets far enough to say so itself).
/// </summary>
public sealed record HeapRequest(IReadOnlyList<string> Serializers, int Objects)
{
    /// <summary>Options the recorder sets for the benchmark; a user passing them would break the handshake.</summary>
    public static readonly IReadOnlyList<string> RecorderOwned = ["--heap-pipe", "--heap-timeout"];

    public static HeapRequest? From(IReadOnlyList<string> benchmarkArgs)
    {
        foreach (var owned in RecorderOwned)
            if (Value(benchmarkArgs, owned) is not null)
                throw new UsageException($"record: {owned} is set by the recorder");
        var heap = Value(benchmarkArgs, "--heap");
        if (heap is null) return null;
        var names = heap.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var objects = Counts(Value(benchmarkArgs, "--heap-objects")) ?? Counts(Value(benchmarkArgs, "--n")) ?? 0;
        return new HeapRequest(names, objects);
    }

    /// <summary>The benchmark's own count syntax (10k, 1m), through the same parser; null when absent or unreadable.</summary>
    private static int? Counts(string? value)
    {
        if (value is null) return null;
        try { return new ArgReader(["--n", value], new HashSet<string>()).IntList("n", []).FirstOrDefault(); }
        catch (UsageException) { return null; } // the benchmark reports it properly
    }

    private static string? Value(IReadOnlyList<string> args, string name)
    {
        for (var i = 0; i < args.Count; i++)
        {
            if (args[i].Equals(name, StringComparison.OrdinalIgnoreCase) && i + 1 < args.Count) return args[i + 1];
            if (args[i].StartsWith(name + "=", StringComparison.OrdinalIgnoreCase)) return args[i][(name.Length + 1)..];
        }
        return null;
    }
}
