using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// The run events as a listener receives them (the in-process view of what a trace gets): version 1 of RunStart and
/// RunStop carries Warmup and Operations after the version-0 fields, whose names and order are unchanged.
/// </summary>
public sealed class RunEventsTests
{
    private sealed class Listener : EventListener
    {
        public ConcurrentQueue<EventWrittenEventArgs> Events { get; } = new();

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == RunEvents.ProviderName) EnableEvents(source, EventLevel.Informational);
        }

        protected override void OnEventWritten(EventWrittenEventArgs e) => Events.Enqueue(e);
    }

    [Fact]
    public void RunStart_and_RunStop_say_whether_the_run_is_a_warm_up_and_how_many_calls_it_made()
    {
        using var listener = new Listener();
        using var marker = new MarkerThread();
        var scope = new RunScope(marker, allThreads: false);
        scope.Measure(new RunContext("S", "deserialize", "BookShelf", 10, Run: 7, Warmup: true, Operations: 3), () => { });
        scope.Measure(new RunContext("S", "deserialize", "BookShelf", 10, Run: 8, Warmup: false, Operations: 3), () => { });

        var events = listener.Events.Where(e => e.EventId is RunEvents.RunStartId or RunEvents.RunStopId).ToList();
        Assert.Equal(4, events.Count);
        Assert.All(events, e => Assert.Equal(RunEvents.RunStartStopVersion, e.Version));
        string[] common = [RunEvents.Fields.Serializer, RunEvents.Fields.Operation, RunEvents.Fields.Data, RunEvents.Fields.Objects, RunEvents.Fields.Run,
            RunEvents.Fields.MarkerThreadId, RunEvents.Fields.WorkerThreadId];
        var start = events.Where(e => e.EventId == RunEvents.RunStartId).ToList();
        var stop = events.Where(e => e.EventId == RunEvents.RunStopId).ToList();
        Assert.All(start, e => Assert.Equal([.. common, RunEvents.Fields.Warmup, RunEvents.Fields.Operations], e.PayloadNames));
        Assert.All(stop, e => Assert.Equal([.. common, RunEvents.Fields.DurationMs, RunEvents.Fields.Warmup, RunEvents.Fields.Operations, RunEvents.Fields.Exceptions], e.PayloadNames));
        object? Field(EventWrittenEventArgs e, string name) => e.Payload![e.PayloadNames!.IndexOf(name)];
        Assert.Equal([(7, true, 3), (8, false, 3)], start.Select(e => ((int)Field(e, RunEvents.Fields.Run)!, (bool)Field(e, RunEvents.Fields.Warmup)!, (int)Field(e, RunEvents.Fields.Operations)!)));
        Assert.Equal([(7, true, 3), (8, false, 3)], stop.Select(e => ((int)Field(e, RunEvents.Fields.Run)!, (bool)Field(e, RunEvents.Fields.Warmup)!, (int)Field(e, RunEvents.Fields.Operations)!)));
    }

    /// <summary>
    /// RunStop version 2 carries the run's first-chance exceptions, counted in-process. The count is the process's:
    /// tests running beside this one may add theirs, so at least the run's own five.
    /// </summary>
    [Fact]
    public void RunStop_counts_the_exceptions_the_run_threw()
    {
        using var listener = new Listener();
        using var marker = new MarkerThread();
        var scope = new RunScope(marker, allThreads: false);
        scope.Measure(new RunContext("S", "deserialize", "BookShelf", 10, Run: 1, Warmup: false, Operations: 1), () =>
        {
            for (var i = 0; i < 5; i++)
                try { throw new FormatException(); } catch (FormatException) { } // thrown only to be counted
        });
        var stop = Assert.Single(listener.Events, e => e.EventId == RunEvents.RunStopId);
        Assert.InRange((long)stop.Payload![stop.PayloadNames!.IndexOf(RunEvents.Fields.Exceptions)]!, 5L, long.MaxValue);
    }
}
