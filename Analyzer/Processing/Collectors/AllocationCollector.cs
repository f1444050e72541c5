using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>Allocation ticks (GCAllocationTick: one per ~100 KB a thread allocates), charged to the run and the thread.</summary>
internal sealed class AllocationCollector
{
    /// <summary>The type name of a tick that carried none.</summary>
    public const string UnknownType = "?";

    /// <summary>Any tick in the trace: without one the allocation columns say nothing, not zero.</summary>
    public bool Seen { get; private set; }

    public void Tick(RunDraft? run, ThreadDraft? thread, long bytes, string? typeName)
    {
        Seen = true;
        var type = string.IsNullOrEmpty(typeName) ? UnknownType : typeName;
        run?.Counters.CountAllocation(bytes, type);
        thread?.Counters.CountAllocation(bytes, type);
    }
}
