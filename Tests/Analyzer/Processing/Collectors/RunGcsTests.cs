using EtwSerializerProfiler.Analyzer.Collections;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Common;
using static EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors.CollectorInputs;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

public sealed class RunGcsTests
{
    [Fact]
    public void A_gc_is_the_runs_whose_window_holds_its_start_edges_included()
    {
        RunDraft[] runs = [Run(10, 20, run: 1), Run(30, 40, run: 2)];
        RunGcs.CountGenerations(runs,
        [
            (9.999, 0),    // just before the first window
            (10, 0),       // at its start
            (15, 1),
            (20, 2),       // at its end
            (20.001, 0),   // just after: between the runs
            (35, 2),
            (40.5, 0),     // after the last
        ]);
        Assert.Equal(new GcCounts(1, 1, 1), runs[0].Freeze().GcCount);
        Assert.Equal(new GcCounts(0, 0, 1), runs[1].Freeze().GcCount);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Pauses_are_clipped_to_each_window_and_one_across_two_runs_counts_in_both(bool inStartOrder)
    {
        RunDraft[] runs = [Run(10, 20, run: 1), Run(30, 40, run: 2)];
        Interval[] given = [new(35, 36), new(9, 11), new(19.5, 30.5), new(40, 41), new(25, 26)];
        var pauses = new ChunkedList<Interval>();
        var added = inStartOrder ? [.. given.OrderBy(p => p.StartMs)] : given;
        foreach (var p in added) pauses.Add(p);
        var byRun = RunGcs.OverlapsByRun(pauses, runs).GroupBy(p => p.Run).ToDictionary(g => g.Key, g => g.Sum(p => p.Ms));
        Assert.Equal(1 + 0.5, byRun[runs[0]], 9);
        Assert.Equal(0.5 + 1, byRun[runs[1]], 9);
        Assert.Equal(added, pauses); // the pass's list is read, never reordered
    }
}
