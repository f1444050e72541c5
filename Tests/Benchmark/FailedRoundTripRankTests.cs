using EtwSerializerProfiler.Benchmark.Output;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>A serializer whose round trip failed is not ranked, in the benchmark's table or by the shared rule.</summary>
public sealed class FailedRoundTripRankTests
{
    [Fact]
    public void A_failed_row_is_unranked_and_the_others_are_numbered_without_it()
    {
        // B fails and is the fastest: it takes no number, and C (whose range overlaps B's) is not marked ~ because of it.
        var ranks = RankRule.Rank([(1.0, 1.2, 5, false), (1.1, 1.5, 5, true), (1.4, 1.6, 5, false), (3.0, 3.1, 5, false)]);

        Assert.Equal(["1", RankRule.Unranked, "2", "3"], ranks);
    }

    [Fact]
    public void A_row_alone_is_ranked_against_nothing()
    {
        Assert.Equal([RankRule.Alone], RankRule.Rank([(1.0, 1.2, 5, false)]));
        // The only other row failed: nothing is left to rank against either.
        Assert.Equal([RankRule.Unranked, RankRule.Alone], RankRule.Rank([(0.5, 0.6, 5, true), (1.0, 1.2, 5, false)]));
    }

    [Fact]
    public void The_benchmark_table_marks_the_mismatch_and_says_why()
    {
        var results = new BenchmarkResults
        {
            Runtime = ".NET 10.0", OperatingSystem = "Linux", Configuration = "Release", DebuggerAttached = false, ProcessId = 1,
            StartTimeUtc = DateTime.UtcNow, CommandLine = "test",
            Runs = [.. Runs("Fast.But.Wrong", 1.0, "MISMATCH: Books[0].Payload: null came back as bytes"), .. Runs("Slow", 2.0, "ok"), .. Runs("Slower", 4.0, "ok")],
        };

        var table = ResultsReport.Summary(results);

        var rank = table.Columns.ToList().IndexOf("Rank");
        Assert.Equal([RankRule.Unranked, "1", "2"], table.Rows.Select(r => r[rank]));
        Assert.Contains(table.Notes, n => n.StartsWith($"Rank {RankRule.Unranked}:", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("MISMATCH: Books[0].Id: 1 != 2", true)]
    [InlineData("ok", false)]
    [InlineData("ok (drops: private members)", false)]
    [InlineData(null, false)]
    public void Only_a_mismatch_is_a_failure(string? verification, bool failed) =>
        Assert.Equal(failed, RankRule.IsFailedRoundTrip(verification));

    private static IEnumerable<RunResult> Runs(string serializer, double ms, string verification) =>
        Enumerable.Range(0, 3).Select(i => new RunResult
        {
            Serializer = serializer, Operation = "deserialize", Data = "BookShelf", Objects = 100, Run = i, Operations = 1,
            DurationMs = ms + i * 0.01, GcCount = GcCounts.Zero, GcPauseMs = 0, AllocatedBytes = 0, Verification = verification,
        });
}
