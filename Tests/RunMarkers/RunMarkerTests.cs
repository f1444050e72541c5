using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Tests.RunMarkers;

/// <summary>
/// RunMarker, the harness the benchmark numbers its own runs with: a probe's counters are read outside the events that
/// bound the window, and the marker thread's wait covers the window.
/// </summary>
public sealed class RunMarkerTests
{
    private sealed class NotingProbe(RunEventLog log) : IRunProbe
    {
        public void BeforeRun() => log.Note("probe before");
        public void AfterRun() => log.Note("probe after");
    }

    [Fact]
    public void The_probe_reads_after_RunStart_before_RunBegin_and_after_RunEnd_before_RunStop()
    {
        using var log = new RunEventLog();
        using var marker = new MarkerThread();
        using var runMarker = new RunMarker(marker);
        var before = log.Entries.Count;
        var window = runMarker.Measure(new RunInfo("probe-order", "serialize", "", 1, 0), () => Thread.Sleep(2), new NotingProbe(log));

        Assert.Equal([RunEvents.RunStartName, "probe before", "RunBegin", "RunEnd", "probe after", RunEvents.RunStopName],
            log.Entries.Skip(before).Select(e => e.Name));
        Assert.Equal(marker.OsThreadId, window.MarkerThreadId);
        // The marker's wait holds the whole window (LastWaitStart/End are the marker's own Stopwatch reads).
        Assert.True(System.Diagnostics.Stopwatch.GetElapsedTime(marker.LastWaitStart, marker.LastWaitEnd).TotalMilliseconds >= window.DurationMs);
    }

    [Fact]
    public void Runs_on_one_marker_do_not_overlap_and_a_run_marker_does_not_stop_a_marker_it_does_not_own()
    {
        using var marker = new MarkerThread();
        using (var runMarker = new RunMarker(marker))
        {
            var error = Assert.Throws<InvalidOperationException>(() =>
                runMarker.Measure(new RunInfo("nested", "serialize", "", 0, 0), () => runMarker.Measure(new RunInfo("nested", "serialize", "", 0, 1), () => { })));
            Assert.Contains("already open", error.Message, StringComparison.Ordinal);
        }
        // Still running: the caller owns it.
        marker.Begin("serialize");
        marker.End();
    }
}
