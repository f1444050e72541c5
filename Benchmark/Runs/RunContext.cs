using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs.Warmup;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>What the runner knows about the current run; the same values go into RunStart/RunStop and results.</summary>
/// <param name="Warmup">A warm-up run: marked in the events and results, left out of every table.</param>
/// <param name="Operations">Serializer calls inside the window (the body repeats them); everything measured covers all of them.</param>
public readonly record struct RunContext(string Serializer, string Operation, string Data, int Objects, int Run, bool Warmup = false, int Operations = 1);

/// <summary>
/// Wraps one measured region: the run marker (RunMarkers/RunMarker.cs) writes the events, drives the marker thread and
/// reads the Stopwatch and the thread's CPU clock; the benchmark's counters (GC, allocations, JIT, and the process's CPU
/// when the run spans threads) are read just outside, by <see cref="CounterProbe"/>. The order is fixed so the trace's
/// view and the in-process view cover the same interval.
/// </summary>
public sealed class RunScope
{
    private readonly RunMarker _marker;
    private readonly CounterProbe _probe;
    private readonly bool _allThreads;
    private readonly int? _failAfterRuns;
    private int _completed;

    public RunScope(MarkerThread marker, bool allThreads, int? failAfterRuns = null)
    {
        _marker = new RunMarker(marker);
        _probe = new CounterProbe(allThreads);
        _allThreads = allThreads;
        _failAfterRuns = failAfterRuns;
    }

    // Fully optimized from the first call, never re-jitted: the harness runs once per run, so if it tiered like
    // ordinary code its own tier-ups would keep the JIT busy for the first hundred runs and hold the warm-up open.
    [MethodImpl(HarnessCode.Optimized)]
    public RunMeasurement Measure(RunContext run, Action body) => Measure(run, body, crew: null);

    /// <summary>A run whose body hands the work to a crew of threads and waits for them (--threads).</summary>
    /// <param name="crew">The crew: named in the trace (RunThread events), its CPU clocks read just outside the window.</param>
    [MethodImpl(HarnessCode.Optimized)]
    public RunMeasurement Measure(RunContext run, Action body, WorkerCrew? crew)
    {
        _probe.Crew = crew;
        var window = _marker.Measure(new RunInfo(run.Serializer, run.Operation, run.Data, run.Objects, run.Run, run.Warmup, run.Operations), body, _probe, crew?.OsThreadIds);
        if (++_completed == _failAfterRuns) Environment.FailFast($"--fail-after-runs {_failAfterRuns}: simulated crash");
        var (gcs, pauseMs, allocated, processCpuMs, exceptions) = InProcessCounters.Delta(_probe.Before, _probe.After);
        // One thread: its CPU clock, read next to the Stopwatch. Several: the process's, read outside the window
        // (reading it allocates).
        var cpuMs = _allThreads ? processCpuMs : window.ThreadCpuMs;
        // Every thread of the run: the worker's clock next to the Stopwatch, plus each crew thread's read just outside
        // the window (the probe's last read before it, its first after). What the trace's charge of the run is held to.
        double? threadsCpuMs = crew is null ? window.ThreadCpuMs
            : _probe.CrewBefore is { } b && _probe.CrewAfter is { } a ? window.ThreadCpuMs + (a - b).TotalMilliseconds : null;
        return new RunMeasurement(window.DurationMs, window.OuterDurationMs, gcs, pauseMs, allocated, cpuMs, window.WorkerThreadId, window.MarkerThreadId,
            _probe.JitBefore, _probe.JitAfter)
        {
            ThreadsCpuMs = threadsCpuMs, Threads = 1 + (crew?.Count ?? 0), Exceptions = exceptions,
            ProcessCpuMs = (_probe.ProcessCpuAfter - _probe.ProcessCpuBefore).TotalMilliseconds,
        };
    }

    /// <summary>The benchmark's counters, read by the run marker just outside the window: JIT first and last, so the warm-up's clock brackets the rest.</summary>
    private sealed class CounterProbe(bool allThreads) : IRunProbe
    {
        public JitReading JitBefore { get; private set; }
        public JitReading JitAfter { get; private set; }
        public InProcessCounters Before { get; private set; }
        public InProcessCounters After { get; private set; }
        /// <summary>The run's crew (--threads), whose CPU clocks are read last before the window and first after it.</summary>
        public WorkerCrew? Crew { get; set; }
        public TimeSpan? CrewBefore { get; private set; }
        public TimeSpan? CrewAfter { get; private set; }
        /// <summary>The process's CPU clock, every thread's: read last before the window and first after it, in every run.</summary>
        public TimeSpan ProcessCpuBefore { get; private set; }
        public TimeSpan ProcessCpuAfter { get; private set; }

        [MethodImpl(HarnessCode.Optimized)]
        public void BeforeRun()
        {
            var jit = JitCounters.Take();
            JitBefore = new JitReading(jit, System.Diagnostics.Stopwatch.GetTimestamp());
            Before = InProcessCounters.Take(allThreads);
            CrewBefore = Crew?.CpuTime();
            ProcessCpuBefore = NativeThreadInfo.ProcessCpuTime();
        }

        [MethodImpl(HarnessCode.Optimized)]
        public void AfterRun()
        {
            ProcessCpuAfter = NativeThreadInfo.ProcessCpuTime();
            CrewAfter = Crew?.CpuTime();
            After = InProcessCounters.Take(allThreads);
            var jit = JitCounters.Take();
            JitAfter = new JitReading(jit, System.Diagnostics.Stopwatch.GetTimestamp());
        }
    }
}

/// <param name="JitBefore">JIT counters read just before the counters and the window (the warm-up's clock, too).</param>
/// <param name="JitAfter">Read just after.</param>
public readonly record struct RunMeasurement(double DurationMs, double OuterDurationMs, GcCounts Gcs, double GcPauseMs, long AllocatedBytes, double CpuMs,
    int WorkerThreadId, int MarkerThreadId, JitReading JitBefore = default, JitReading JitAfter = default)
{
    /// <summary>Every thread of the run's CPU clock summed (the worker's, and each crew thread's); null where a crew's clocks cannot be read.</summary>
    public double? ThreadsCpuMs { get; init; }
    /// <summary>Threads that made the run's calls: the crew's (--threads), or the worker alone (1).</summary>
    public int Threads { get; init; } = 1;
    /// <summary>
    /// The process's CPU clock (every thread's) from just before to just after the window: the workers' and everything
    /// else the run caused or met (background GC, tiering, the finalizer, the tracer's threads in the process).
    /// </summary>
    public double? ProcessCpuMs { get; init; }
    /// <summary>First-chance exceptions thrown in the process between the two readings (<see cref="FirstChanceExceptions"/>).</summary>
    public long Exceptions { get; init; }

    /// <summary>Methods compiled in the process between the two readings; null without a JIT counter.</summary>
    public JitSnapshot? Jit => JitAfter.Counters is { } a && JitBefore.Counters is { } b ? a - b : null;
}

/// <summary>JIT counters (null where the runtime has none) and the Stopwatch timestamp they were read at.</summary>
/// <summary>The JIT's count and when it was read; its getters are compiled optimized at once (read every run: no tier-ups).</summary>
public readonly record struct JitReading(JitSnapshot? Counters, long Timestamp)
{
    public JitSnapshot? Counters { [MethodImpl(HarnessCode.Optimized)] get; init; } = Counters;
    public long Timestamp { [MethodImpl(HarnessCode.Optimized)] get; init; } = Timestamp;
}
