using System.Reflection;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Model;

/// <summary>
/// A draft and its frozen model type list the same figures, and Freeze carries every one: a column added to the
/// draft but not to the model (or not to Freeze) fails here, not as a silent zero in every report.
/// </summary>
public sealed class DraftFreezeTests
{
    [Fact]
    public void Freezing_a_run_carries_every_figure_the_draft_has()
    {
        var draft = new RunDraft();
        var values = new Dictionary<string, object?>();
        var i = 0;
        foreach (var p in typeof(RunDraft).GetProperties().Where(p => p.CanWrite))
        {
            values[p.Name] = Distinct(p.PropertyType, ++i);
            p.SetValue(draft, values[p.Name]);
        }
        draft.TagTable["Deserialize"] = 1;
        draft.OffCpuTable[OffCpuReason.Preempted] = 2;
        draft.TierTable[CodeTier.Tier1] = 3;
        draft.OtherThreadsTable[ThreadRole.Gc] = 6;
        draft.Counters.CountJit(4);
        draft.CrewThreadIds.AddRange([5, 6]);

        var run = draft.Freeze();
        // The CPU and GC figures are one SampledCpu and one GcCounts in the model (what a thread and the process have too), read through the run's own names.
        var frozen = typeof(RunAnalysis).GetProperties().ToDictionary(p => p.Name);
        foreach (var (name, value) in values.Where(v => v.Key != nameof(RunDraft.Closed)))
        {
            Assert.True(frozen.TryGetValue(name, out var p), $"RunAnalysis has no {name}");
            Assert.Equal(value, p!.GetValue(run));
        }
        Assert.Equal(1, run.Tags["Deserialize"]);
        Assert.Equal(2, run.OffCpuMs[OffCpuReason.Preempted]);
        Assert.Equal(3, run.TierMs[CodeTier.Tier1]);
        Assert.Equal(6, run.OtherThreadsCpu[ThreadRole.Gc]);
        Assert.Equal(4, run.Counters.JitMs);
        Assert.Equal([5, 6], run.CrewThreadIds);
        Assert.Equal(draft.Calls, run.Calls);
        // Every settable figure of the model comes from the draft (the tables and counters by their own names).
        var settable = typeof(RunAnalysis).GetProperties().Where(p => p.SetMethod is not null).Select(p => p.Name);
        Assert.Empty(settable.Except(values.Keys).Except([nameof(RunAnalysis.Cpu), nameof(RunAnalysis.GcCount), nameof(RunAnalysis.OffCpuMs), nameof(RunAnalysis.TierMs), nameof(RunAnalysis.OtherThreadsCpu), nameof(RunAnalysis.Counters), nameof(RunAnalysis.CrewThreadIds)]));
    }

    [Fact]
    public void Freezing_a_thread_carries_its_name_columns_and_counts()
    {
        var draft = new ThreadDraft { ThreadId = 7, Name = "worker", CpuMs = 1.5, Samples = 3 };
        draft.TagTable["GC"] = 0.5;
        draft.Counters.CountException(new ExceptionSite("System.FormatException", Sites.Frame("M!T.Throw"), "DataContract"));
        var thread = draft.Freeze();
        Assert.Equal((7, "worker", 1.5, 3, 0.5, 1), (thread.ThreadId, thread.Name, thread.CpuMs, thread.Samples, thread.Tags["GC"], thread.Counters.Exceptions));
        // A thread's sites keep their stack tag (a run's leave it out): the tally's rule survives the freeze.
        Assert.Equal("DataContract", thread.Counters.ExceptionsBySite.Keys.Single().Thrower.Tag);
    }

    /// <summary>A value of the property's type that no other property got, so a swapped assignment fails too.</summary>
    private static object? Distinct(Type type, int i) => type switch
    {
        _ when type == typeof(int) => i,
        _ when type == typeof(long) => (long)i,
        _ when type == typeof(long?) => (long?)(i + 1000),
        _ when type == typeof(double) => i + 0.25,
        _ when type == typeof(double?) => (double?)(i + 0.5),
        _ when type == typeof(bool) => true,
        _ when type == typeof(bool?) => (bool?)true,
        _ when type == typeof(string) => $"s{i}",
        _ when type == typeof(RunKey) => new RunKey("S", "deserialize", i, i),
        _ when type == typeof(WindowSource) => WindowSource.HarnessEvents,
        _ when type == typeof((double, double)?) => ((double, double)?)(i, i + 1),
        _ when type == typeof(RunResult) => new RunResult { Serializer = "S", Operation = "deserialize", Data = "d", Objects = i, Run = i, DurationMs = i, GcCount = GcCounts.Zero, GcPauseMs = 0, AllocatedBytes = 0 },
        _ when type == typeof(SampledCpu) => new SampledCpu(i, i, new Dictionary<string, double>()),
        _ => throw new InvalidOperationException($"no test value for {type}: add one here"),
    };
}
