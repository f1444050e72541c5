using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Analyzer.Findings;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// A CPU figure no source covers (a trace without samples, runs after a cut kernel session) is missing, never 0:
/// `-` in the text tables, null in JSON, an empty CSV cell. A covered run keeps its figure, even a true 0.
/// </summary>
public sealed class MissingCpuTests
{
    private static TraceAnalysis Analysis() => SyntheticRuns.Analysis([
        // "Cut": no CPU source for either measured run (their CpuMs stays 0, as the charge leaves it).
        .. SyntheticRuns.Group("Cut", "serialize", 10, 5, set: r => r.CpuKnown = false),
        // "Half": one run covered (4 ms), one not: the mean is over the covered run alone.
        SyntheticRuns.Run("Half", "serialize", 10, 1, 5, set: r => { r.CpuMs = 4; r.TagTable["Serializer"] = 3; }),
        SyntheticRuns.Run("Half", "serialize", 10, 2, 5, set: r => r.CpuKnown = false),
        // "Idle": covered, and truly 0 ms on the CPU: a figure, not a missing one.
        .. SyntheticRuns.Group("Idle", "serialize", 10, 5),
    ]);

    [Fact]
    public void The_text_table_shows_a_dash_where_no_run_has_a_CPU_source()
    {
        var table = AnalysisReport.OperationTables(Analysis()).Single();
        var cpu = table.Columns.ToList().IndexOf("CPU ms");
        string Cell(string serializer) => table.Rows.Single(r => r[0] == serializer)[cpu];
        Assert.Equal("-", Cell("Cut"));
        Assert.Equal(Fmt.Ms(4), Cell("Half"));
        Assert.Equal(Fmt.Ms(0), Cell("Idle"));
        Assert.DoesNotContain("-", Fmt.Ms(0)); // the rule's point: 0 and missing read differently
    }

    [Fact]
    public void A_run_without_a_source_does_not_dilute_the_means_of_the_runs_with_one()
    {
        var half = CaseSummary.From(Analysis().Runs).Single(s => s.Serializer == "Half");
        Assert.True(half.CpuKnown);
        Assert.Equal(4, half.CpuMs, 12);
        Assert.Equal(3, half.Tags["Serializer"], 12); // not 1.5: the uncovered run has no tags because nothing saw it
        Assert.False(CaseSummary.From(Analysis().Runs).Single(s => s.Serializer == "Cut").CpuKnown);
    }

    [Fact]
    public void JSON_writes_null_and_CSV_an_empty_cell_for_a_run_without_a_CPU_source()
    {
        var analysis = Analysis();
        var json = AnalysisReport.Json(analysis);
        var runs = json["runs"]!.AsArray();
        JsonNode? RunCpu(string serializer, int run) => runs.Single(r => (string)r!["serializer"]! == serializer && (int)r["run"]! == run)!["cpuMs"];
        Assert.Null(RunCpu("Cut", 1));
        Assert.Null(RunCpu("Half", 2));
        Assert.Equal(4.0, (double)RunCpu("Half", 1)!);
        Assert.Equal(0.0, (double)RunCpu("Idle", 1)!);
        var serializers = json["serializers"]!.AsArray();
        JsonNode? MeanCpu(string serializer) => serializers.Single(s => (string)s!["serializer"]! == serializer)!["cpuMs"];
        Assert.Null(MeanCpu("Cut"));
        Assert.Equal(4.0, (double)MeanCpu("Half")!);
        Assert.Equal(0.0, (double)MeanCpu("Idle")!);

        var csv = AnalysisReport.RunsTable(analysis);
        var cpu = csv.Columns.ToList().IndexOf("cpuMs");
        string Cell(string serializer, int run) => csv.Rows.Single(r => r[0] == serializer && r[4] == Fmt.Int(run))[cpu];
        Assert.Equal("", Cell("Cut", 1));
        Assert.Equal("", Cell("Half", 2));
        Assert.Equal(Fmt.Num(4, "F3"), Cell("Half", 1));
        Assert.Equal(Fmt.Num(0, "F3"), Cell("Idle", 1));
    }
}
