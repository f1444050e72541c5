using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>What the runner knows about the current run; the same values go into RunStart/RunStop and results.</summary>
public readonly record struct RunContext(string Serializer, string Operation, string Data, int Objects, int Run);

/// <summary>
/// Wraps one measured region: counters outside, marker window and Stopwatch inside, events around both.
/// The order is fixed so the trace's view and the in-process view cover the same interval.
/// </summary>
public sealed class RunScope
{
    private readonly MarkerThread _marker;
    private readonly bool _allThreads;
    private readonly int? _failAfterRuns;
    private int _completed;

    public RunScope(MarkerThread marker, bool allThreads, int? failAfterRuns = null)
    {
        _marker = marker;
        _allThreads = allThreads;
        _failAfterRuns = failAfterRuns;
        // The first call of an event method JIT-compiles it between the Stopwatch read and the event, which would
        // stretch the first run's window; outside a run, the analyzer ignores these.
        RunEventSource.Log.RunBegin();
        RunEventSource.Log.RunEnd();
    }

    public RunMeasurement Measure(RunContext run, Action body)
    {
        var workerTid = NativeThreadInfo.CurrentOsThreadId();
        RunEventSource.Log.RunStart(run.Serializer, run.Operation, run.Data, run.Objects, run.Run, _marker.OsThreadId, workerTid);
        var before = InProcessCounters.Take(_allThreads);
        _marker.Begin(run.Operation);
        var outerStart = System.Diagnostics.Stopwatch.GetTimestamp();
        RunEventSource.Log.RunBegin();
        var start = System.Diagnostics.Stopwatch.GetTimestamp();
        body();
        var stop = System.Diagnostics.Stopwatch.GetTimestamp();
        RunEventSource.Log.RunEnd();
        var outerStop = System.Diagnostics.Stopwatch.GetTimestamp();
        _marker.End();
        var after = InProcessCounters.Take(_allThreads);
        var durationMs = System.Diagnostics.Stopwatch.GetElapsedTime(start, stop).TotalMilliseconds;
        var outerMs = System.Diagnostics.Stopwatch.GetElapsedTime(outerStart, outerStop).TotalMilliseconds;
        RunEventSource.Log.RunStop(run.Serializer, run.Operation, run.Data, run.Objects, run.Run, _marker.OsThreadId, workerTid, durationMs);
        if (++_completed == _failAfterRuns) Environment.FailFast($"--fail-after-runs {_failAfterRuns}: simulated crash");
        var (gcs, pauseMs, allocated, cpuMs) = InProcessCounters.Delta(before, after);
        return new RunMeasurement(durationMs, outerMs, gcs, pauseMs, allocated, cpuMs, workerTid, _marker.OsThreadId);
    }
}

public readonly record struct RunMeasurement(double DurationMs, double OuterDurationMs, GcCounts Gcs, double GcPauseMs, long AllocatedBytes, double CpuMs, int WorkerThreadId, int MarkerThreadId);
