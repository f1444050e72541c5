using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.Diff;

/// <summary>The diff says when the two sides' tracing costs differ: the tracer then explains part of the difference.</summary>
public sealed class TracingCostComparisonTests
{
    private static BenchmarkResults Results(double untracedMs, double tracedMs, double? untracedCpuMs = null, double? tracedCpuMs = null) => new()
    {
        Runtime = ".NET 10", OperatingSystem = "Linux", Configuration = "Release", DebuggerAttached = false, ProcessId = 1,
        StartTimeUtc = DateTime.UnixEpoch, CommandLine = "",
        TracingCost =
        [
            new TracingCostCase
            {
                Serializer = "S", Operation = "serialize", Data = "BookShelf", Objects = 100, Operations = 10,
                UntracedMs = [untracedMs, untracedMs, untracedMs], TracedMs = [tracedMs, tracedMs, tracedMs],
                UntracedCpuMs = untracedCpuMs is { } u ? [u, u, u] : [], TracedCpuMs = tracedCpuMs is { } t ? [t, t, t] : [],
            },
        ],
    };

    [Fact]
    public void A_cost_that_differs_by_more_than_5_points_is_said_once()
    {
        var warning = Assert.Single(TracingCostComparison.Warnings([Results(1.0, 1.02)], [Results(1.0, 1.20)]));
        Assert.Contains("S serialize N=100: +2.0% in the baseline, +20.0% in the trace", warning, StringComparison.Ordinal);
        Assert.Contains("18.0 points", warning, StringComparison.Ordinal);
    }

    [Fact]
    public void Close_costs_or_one_side_without_them_say_nothing()
    {
        Assert.Empty(TracingCostComparison.Warnings([Results(1.0, 1.02)], [Results(1.0, 1.05)]));
        Assert.Empty(TracingCostComparison.Warnings([Results(1.0, 1.02)], [null]));
    }

    [Fact]
    public void Costs_whose_intervals_overlap_are_noise_and_a_case_not_compared_is_not_said()
    {
        // 18 points apart (+2% against +20%), but +2% lies in the other side's interval: noise. Apart only beyond both.
        Assert.False(TracingCostComparison.Apart((2, 1, 3), (20, -5, 45)));
        Assert.False(TracingCostComparison.Apart((2, 1, 3), (6, 4, 8)));
        Assert.True(TracingCostComparison.Apart((2, 1, 3), (20, 10, 45)));
        Assert.True(TracingCostComparison.Apart((20, 10, 45), (2, 1, 3)));
        // Apart, but --serializers left the case out of the diff.
        Assert.Empty(TracingCostComparison.Warnings([Results(1.0, 1.02)], [Results(1.0, 1.20)], new HashSet<(string, string, int)> { ("Other", "serialize", 100) }));
    }

    [Fact]
    public void A_side_of_several_launches_counts_their_mean()
    {
        // Launches at +0% and +20% span +2%: within noise.
        Assert.Empty(TracingCostComparison.Warnings([Results(1.0, 1.0), Results(1.0, 1.2)], [Results(1.0, 1.02)]));
        // Launches at +8% and +12%: +10% against the other side's +2% is 8 points apart, beyond the launches' span.
        var warning = Assert.Single(TracingCostComparison.Warnings([Results(1.0, 1.08), Results(1.0, 1.12)], [Results(1.0, 1.02)]));
        Assert.Contains("+10.0% in the baseline", warning, StringComparison.Ordinal);
    }

    [Fact]
    public void The_thread_CPU_clock_decides_where_there_is_one()
    {
        // The Stopwatch 18 points apart (waiting for a CPU on a busy machine), the thread CPU clock 1 point: nothing.
        Assert.Empty(TracingCostComparison.Warnings([Results(1.0, 1.02, 1.0, 1.02)], [Results(1.0, 1.20, 1.0, 1.03)]));
        // The other way round: the thread CPU clock's 10 points are said.
        var warning = Assert.Single(TracingCostComparison.Warnings([Results(1.0, 1.02, 1.0, 1.02)], [Results(1.0, 1.03, 1.0, 1.12)]));
        Assert.Contains("+2.0% in the baseline, +12.0% in the trace", warning, StringComparison.Ordinal);
    }
}
