using EtwSerializerProfiler.Analyzer.Gc;


namespace EtwSerializerProfiler.Tests.Analyzer.Gc;

/// <summary>The collections as TraceEvent's GC analysis lists them, on hand-made GCStart sequences.</summary>
public sealed class GcCollectionsTests
{
    [Fact]
    public void Counts_each_gc_inside_a_suspension_once_by_generation()
    {
        var gcs = new GcCollections();
        Assert.True(gcs.Start(number: 1, generation: 0, suspended: true));
        Assert.False(gcs.Start(number: 1, generation: 0, suspended: true)); // the same GC's second GCStart
        Assert.True(gcs.Start(number: 2, generation: 1, suspended: true));
        Assert.True(gcs.Start(number: 3, generation: 2, suspended: true));
        Assert.True(gcs.Start(number: 4, generation: 0, suspended: true)); // the ephemeral GC inside a background GC
        Assert.Equal((2, 1, 1), gcs.Counts());
    }

    [Fact]
    public void A_gcstart_outside_any_suspension_is_not_counted()
    {
        var gcs = new GcCollections();
        Assert.False(gcs.Start(number: 7, generation: 2, suspended: false)); // its suspension began before the trace
        Assert.True(gcs.Start(number: 8, generation: 0, suspended: true));
        Assert.Equal((1, 0, 0), gcs.Counts());
    }
}
