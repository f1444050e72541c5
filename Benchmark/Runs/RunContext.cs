using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs.Warmup;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>What the runner knows about the current run; the same values go into RunStart/RunStop and results.</summary>
/// <param name="Warmup">A warm-up run: marked in the events and results, left out of every table.</param>
/// <param name="Operations">Serializer calls inside the window (the body repeats them); everything measured covers all of them.</param>
public readonly record struct RunContext(string Serializer, string Operation, string Data, int Objects, int Run, bool Warmup = false, int Operations = 1);

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

    // Fully optimized from the first call, never re-jitted: the harness runs once per run, so if it tiered like
    // ordinary code its own tier-ups would keep the JIT busy for the first hundred runs and hold the warm-up open.
    [MethodImpl(HarnessCode.Optimized)]
    public RunMeasurement Measure(RunContext run, Action body)
    {
        var workerTid = NativeThreadInfo.CurrentOsThreadId();
        RunEventSource.Log.RunStart(run.Serializer, run.Operation, run.Data, run.Objects, run.Run, _marker.OsThreadId, workerTid, run.Warmup, run.Operations);
        var jitBefore = JitCounters.Take();
        var jitBeforeAt = System.Diagnostics.Stopwatch.GetTimestamp();
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
        var jitAfter = JitCounters.Take();
        var jitAfterAt = System.Diagnostics.Stopwatch.GetTimestamp();
        var durationMs = System.Diagnostics.Stopwatch.GetElapsedTime(start, stop).TotalMilliseconds;
        var outerMs = System.Diagnostics.Stopwatch.GetElapsedTime(outerStart, outerStop).TotalMilliseconds;
        RunEventSource.Log.RunStop(run.Serializer, run.Operation, run.Data, run.Objects, run.Run, _marker.OsThreadId, workerTid, durationMs, run.Warmup, run.Operations);
        if (++_completed == _failAfterRuns) Environment.FailFast($"--fail-after-runs {_failAfterRuns}: simulated crash");
        var (gcs, pauseMs, allocated, cpuMs) = InProcessCounters.Delta(before, after);
        return new RunMeasurement(durationMs, outerMs, gcs, pauseMs, allocated, cpuMs, workerTid, _marker.OsThreadId,
            new JitReading(jitBefore, jitBeforeAt), new JitReading(jitAfter, jitAfterAt));
    }
}

/// <param name="JitBefore">JIT counters read just before the counters and the window (the warm-up's clock, too).</param>
/// <param name="JitAfter">Read just after.</param>
public readonly record struct RunMeasurement(double DurationMs, double OuterDurationMs, GcCounts Gcs, double GcPauseMs, long AllocatedBytes, double CpuMs,
    int WorkerThreadId, int MarkerThreadId, JitReading JitBefore = default, JitReading JitAfter = default)
{
    /// <summary>Methods compiled in the process between the two readings; null without a JIT counter.</summary>
    public JitSnapshot? Jit => JitAfter.Counters is { } a && JitBefore.Counters is { } b ? a - b : null;
}

/// <summary>JIT counters (null where the runtime has none) and the Stopwatch timestamp they were read at.</summary>
public readonly record struct JitReading(JitSnapshot? Counters, long Timestamp);
