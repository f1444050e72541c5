using EtwSerializerProfiler.Analyzer.Harness;

namespace EtwSerializerProfiler.Tests.Analyzer.Harness;

/// <summary>
/// The warm-up inference over batches, on the run orders the benchmark writes (taken from a real results.json:
/// "Sw" a serialize warm-up, "Dm" a deserialize measured run, with --runs 3); the end-to-end check is UnnamedRunsTests.
/// </summary>
public sealed class InferredWarmupsTests
{
    private static (string, string) Run(string code) => ("A", code[0] == 'S' ? "serialize" : "deserialize");

    private static void AssertInfers(string runOrder)
    {
        var codes = runOrder.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        var warmups = InferredWarmups.Infer([.. codes.Select(Run)], out _, out var r);
        Assert.Equal(3, r);
        Assert.Equal(codes.Select(c => c[1] == 'w'), warmups);
    }

    [Fact]
    public void Interleaved_warmups_then_one_warmup_and_the_measured_runs_per_operation() =>
        AssertInfers("Sw Dw Sw Dw Sw Dw Sw Sm Sm Sm Dw Dm Dm Dm");

    [Fact]
    public void The_interleaving_can_end_right_before_the_cases_last_warmup_run() =>
        AssertInfers("Sw Dw Sw Dw Sw Sw Sm Sm Sm Dw Dm Dm Dm");

    [Fact]
    public void An_operation_that_warms_alone_is_a_batch_of_warmups() =>
        AssertInfers("Sw Dw Sw Dw Dw Dw Dw Dw Sw Sm Sm Sm Dw Dm Dm Dm");

    [Fact]
    public void The_next_sizes_case_starting_with_single_runs_does_not_unmeasure_the_previous_one() =>
        AssertInfers("Sw Dw Sw Sm Sm Sm Dw Dm Dm Dm Sw Dw Sw Dw Sw Sm Sm Sm Dw Dm Dm Dm");

    [Fact]
    public void Without_batches_of_two_runs_everything_is_a_warmup()
    {
        var warmups = InferredWarmups.Infer([Run("S"), Run("D"), Run("S")], out var batches, out var r);
        Assert.Equal((3, 0), (batches, r));
        Assert.All(warmups, Assert.True);
    }
}
