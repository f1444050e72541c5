using System.Globalization;
using EtwSerializerProfiler.Recorder.Etw;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;

namespace EtwSerializerProfiler.Tests.Recorder.Etw;

/// <summary>
/// The ETW profiles drop noisy CLR events at the source (EVENT_FILTER_TYPE_EVENT_ID). That must never remove an event
/// TraceEvent's GC analysis needs, or ETW GC figures would differ from EventPipe's for the same run: GCHeapStats (id 4),
/// for one, is where TraceEvent ends background GCs and records the heap after each GC. Checked on a real EventPipe
/// recording of the default profile (which has every GC event): TraceEvent's GC analysis is run on it as it is and
/// with each profile's ETW filter applied, event by event, and must see the same GCs.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class EtwGcEventsTests(RecordedBenchmark recorded)
{
    private const int GcHeapStatsId = 4;

    [Theory]
    [InlineData("default")]
    [InlineData("gc")]
    [InlineData("startup")]
    public void The_etw_event_filter_keeps_every_event_of_TraceEvents_gc_analysis(string profile)
    {
        var clr = EtwSessionPlan.ForRecording(ProfileCatalog.Get(profile), 1).Providers.Single(p => p.Name == KeywordNames.ClrProvider);
        var disabled = clr.DisabledEventIds.ToHashSet();

        var (eventPipe, heapStats) = GcFacts(_ => true);
        var (etw, _) = GcFacts(e => !(e.ProviderGuid == KeywordNames.ClrProviderGuid && disabled.Contains((int)e.ID)));

        // The recording has GCs and the heap-stats events that end them: the comparison can fail.
        Assert.True(eventPipe.Count >= 2, $"only {eventPipe.Count} GCs recorded");
        Assert.True(heapStats >= eventPipe.Count(g => g.Contains("complete", StringComparison.Ordinal)));
        Assert.Equal(eventPipe, etw);
    }

    [Fact]
    public void Dropping_GCHeapStats_would_change_TraceEvents_gcs_which_is_what_the_test_above_guards()
    {
        var (all, _) = GcFacts(_ => true);
        var (withoutHeapStats, _) = GcFacts(e => !(e.ProviderGuid == KeywordNames.ClrProviderGuid && (int)e.ID == GcHeapStatsId));
        Assert.NotEqual(all, withoutHeapStats);
    }

    /// <summary>One line per GC as TraceEvent's GC analysis sees it, with only the events <paramref name="keep"/> lets through.</summary>
    private (List<string> Gcs, int HeapStatsEvents) GcFacts(Func<TraceEvent, bool> keep)
    {
        using var source = new EventPipeEventSource(recorded.Folder.Trace);
        source.NeedLoadedDotNetRuntimes();
        var heapStats = 0;
        source.AddDispatchHook((e, dispatch) =>
        {
            if (e.ProviderGuid == KeywordNames.ClrProviderGuid && (int)e.ID == GcHeapStatsId) heapStats++;
            if (keep(e)) dispatch(e);
        });
        source.Process();
        var gcs = source.Processes()
            .SelectMany(p => p.LoadedDotNetRuntime()?.GC?.GCs ?? [])
            .Select(g => string.Create(CultureInfo.InvariantCulture,
                $"#{g.Number} gen{g.Generation} {g.Type} {g.Reason} {(g.IsComplete ? "complete" : "incomplete")} pause {g.PauseDurationMSec:F3} ms, heap after {g.HeapStats?.TotalHeapSize.ToString(CultureInfo.InvariantCulture) ?? "unknown"}"))
            .ToList();
        return (gcs, heapStats);
    }
}
