using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>Allocation ticks, by run, thread and type (<see cref="AllocationCollector"/>).</summary>
internal sealed class AllocationStage : IPassStage
{
    private readonly AllocationCollector _allocations = new();
    private readonly AllocatedTypeNames _types = new();

    public ClrEventFamily? Missing => _allocations.Seen ? null : new("allocation ticks (CLR GC keyword 0x1 at Verbose level)", 0x1, System.Diagnostics.Tracing.EventLevel.Verbose);

    public void Subscribe(TraceEventDispatcher source, IPass pass) =>
        source.Clr.GCAllocationTick += e => _allocations.Tick(pass.RunOf(e), pass.ThreadOf(e), e.AllocationAmount64, _types.Of(e));
}
