using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Launch;

namespace EtwSerializerProfiler.Tests.Recorder.Launch;

public sealed class LaunchPlanTests
{
    [Fact]
    public void Launches_alternate_between_runtimes_one_folder_each()
    {
        var plan = LaunchPlan.Plan([BenchmarkRuntime.Parse("8.0"), BenchmarkRuntime.Parse("10.0")], 3, "out");

        Assert.Equal(["8.0-1", "10.0-1", "8.0-2", "10.0-2", "8.0-3", "10.0-3"], plan.Select(l => Path.GetFileName(l.Folder)));
        Assert.All(plan, l => Assert.Equal("out", Path.GetDirectoryName(l.Folder)));
    }

    [Fact]
    public void The_diff_puts_the_first_runtime_on_the_baseline_side()
    {
        var plan = LaunchPlan.Plan([BenchmarkRuntime.Parse("8.0"), BenchmarkRuntime.Parse("10.0")], 2, "o");

        Assert.Equal([Path.Combine("o", "8.0-1"), Path.Combine("o", "8.0-2"), "vs", Path.Combine("o", "10.0-1"), Path.Combine("o", "10.0-2")], LaunchPlan.DiffArguments(plan));
    }

    [Fact]
    public void Launches_of_the_SDKs_runtime_alone_have_nothing_to_diff()
    {
        var plan = LaunchPlan.Plan([], 2, "o");

        Assert.Equal(["launch-1", "launch-2"], plan.Select(l => Path.GetFileName(l.Folder)));
        Assert.Empty(LaunchPlan.DiffArguments(plan));
        Assert.False(LaunchPlan.IsSeveral([], 1));
        Assert.True(LaunchPlan.IsSeveral([], 2));
    }

    [Fact]
    public void A_runtime_listed_twice_is_a_usage_error() =>
        Assert.Throws<UsageException>(() => LaunchPlan.Plan([BenchmarkRuntime.Parse("8.0"), BenchmarkRuntime.Parse("8.0")], 1, "o"));
}
