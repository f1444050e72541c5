using EtwSerializerProfiler.Analyzer.Processing.Collectors;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

/// <summary>The collections as TraceEvent's GC analysis lists them, on hand-made GCStart sequences.</summary>
public sealed class GcCollectionsTests
{
    [Fact]
    public void Counts_each_gc_inside_a_suspension_once_by_generation()
    {
        var gcs = new GcCollections();
        gcs.Start(1.0, number: 1, generation: 0, suspended: true);
        gcs.Start(1.1, number: 1, generation: 0, suspended: true); // the same GC's second GCStart
        gcs.Start(5.0, number: 2, generation: 1, suspended: true);
        gcs.Start(9.0, number: 3, generation: 2, suspended: true);
        gcs.Start(9.5, number: 4, generation: 0, suspended: true); // the ephemeral GC inside a background GC
        Assert.Equal([(1.0, 0), (5.0, 1), (9.0, 2), (9.5, 0)], gcs.All);
        Assert.Equal((2, 1, 1), gcs.Counts());
    }

    [Fact]
    public void A_gcstart_outside_any_suspension_is_not_counted()
    {
        var gcs = new GcCollections();
        gcs.Start(1.0, number: 7, generation: 2, suspended: false); // its suspension began before the trace
        gcs.Start(2.0, number: 8, generation: 0, suspended: true);
        Assert.Equal([(2.0, 0)], gcs.All);
        Assert.Equal((1, 0, 0), gcs.Counts());
    }
}
