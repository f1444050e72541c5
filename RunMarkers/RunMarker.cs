using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// Measures runs one at a time on one marker thread, in the order the analyzer relies on:
/// <code>
/// worker:  RunStart ─ RunThread* ─ probe.BeforeRun ─ marker.Begin ─ Stopwatch' ─ RunBegin ─ CPU ─ Stopwatch ─ body ─ Stopwatch ─ CPU ─ RunEnd ─ Stopwatch' ─ marker.End ─ probe.AfterRun ─ RunStop
/// marker:                         wakes, arms ─────── waits in SerializeDuration() etc. ───────────────────────── wakes, acknowledges
/// </code>
/// The thread's CPU clock is read next to the Stopwatch, inside the events, so the CPU truth covers the Stopwatch's
/// interval and not the marker handshake (a wake-up of another thread, which costs the worker CPU of its own); the
/// probe's counters, which allocate or move only at a GC, are read outside.
/// The caller numbers its runs (the benchmark does, per serializer, operation and N); <see cref="MarkedRuns"/> is the
/// same with the numbering, thread safety and the thread's CPU and allocations done for you.
/// </summary>
public sealed class RunMarker : IDisposable
{
    private readonly MarkerThread _marker;
    private readonly bool _ownsMarker;
    private int _busy;

    /// <summary>A run marker with a marker thread of its own (stopped by <see cref="Dispose"/>).</summary>
    public RunMarker() : this(new MarkerThread(), ownsMarker: true) { }

    /// <summary>A run marker on a marker thread the caller owns and disposes.</summary>
    public RunMarker(MarkerThread marker) : this(marker ?? throw new ArgumentNullException(nameof(marker)), ownsMarker: false) { }

    private RunMarker(MarkerThread marker, bool ownsMarker)
    {
        _marker = marker;
        _ownsMarker = ownsMarker;
        Prepare();
    }

    /// <summary>The marker's OS thread id (RunStart's MarkerThreadId).</summary>
    public int MarkerThreadId => _marker.OsThreadId;

    /// <summary>
    /// Runs <paramref name="body"/> on the calling thread as one run. The body's exception, if any, propagates after the
    /// run is closed (its events written, the marker released), so the next run starts clean.
    /// </summary>
    /// <param name="run">What the run is.</param>
    /// <param name="body">The measured work, and nothing else: set-up belongs before the call.</param>
    /// <param name="probe">Counters to read just outside the window, or null.</param>
    /// <exception cref="InvalidOperationException">Another run is open on this marker (runs do not nest or overlap).</exception>
    [MethodImpl(Harness.Optimized)]
    public RunWindow Measure(RunInfo run, Action body, IRunProbe? probe = null) => Measure(run, body, probe, threads: null);

    /// <summary>
    /// Runs <paramref name="body"/> on the calling thread as one run whose work other threads share (the body hands it
    /// to them and waits): the same as <see cref="Measure(RunInfo, Action, IRunProbe?)"/>, with those threads named.
    /// </summary>
    /// <param name="run">What the run is.</param>
    /// <param name="body">The measured work, and nothing else: set-up belongs before the call.</param>
    /// <param name="probe">Counters to read just outside the window, or null.</param>
    /// <param name="threads">
    /// OS thread ids of other threads that work for the run while the body waits for them (a crew of workers): each is
    /// named by a RunThread event before the window opens, and the analyzer charges its samples, off-CPU time and
    /// events inside the window to the run. Null or empty: the body's own thread only.
    /// </param>
    /// <exception cref="InvalidOperationException">Another run is open on this marker (runs do not nest or overlap).</exception>
    [MethodImpl(Harness.Optimized)]
    public RunWindow Measure(RunInfo run, Action body, IRunProbe? probe, IReadOnlyList<int>? threads)
    {
        if (body is null) throw new ArgumentNullException(nameof(body));
        var open = Open(run, probe, threads);
        RunWindow window;
        try
        {
            body();
        }
        finally
        {
            window = Close(open, Stopwatch.GetTimestamp());
        }
        return window;
    }

    /// <summary>Everything up to the Stopwatch's start; on return the window is open.</summary>
    [MethodImpl(Harness.Optimized)]
    internal OpenRun Open(in RunInfo run, IRunProbe? probe, IReadOnlyList<int>? threads = null)
    {
        if (Interlocked.Exchange(ref _busy, 1) != 0)
            throw new InvalidOperationException($"a run is already open on this marker: runs are measured one at a time (opening {run.Name} {run.Operation} run {run.Run})");
        int worker;
        long exceptions;
        try
        {
            worker = NativeThreadInfo.CurrentOsThreadId();
            exceptions = FirstChanceCount.Now;
            RunEventSource.Log.RunStart(run.Name, run.Operation, run.Data, run.N, run.Run, _marker.OsThreadId, worker, run.Warmup, run.Operations);
            if (threads is not null)
                for (var i = 0; i < threads.Count; i++) RunEventSource.Log.RunThread(threads[i]);
            probe?.BeforeRun();
            _marker.Begin(run.Operation);
        }
        catch
        {
            Volatile.Write(ref _busy, 0);
            throw;
        }
        var outerStart = Stopwatch.GetTimestamp();
        RunEventSource.Log.RunBegin();
        var cpu = NativeThreadInfo.CurrentThreadCpuTime();
        var start = Stopwatch.GetTimestamp();
        return new OpenRun(run, probe, worker, _marker.OsThreadId, outerStart, start, cpu, exceptions);
    }

    /// <summary>Everything after the Stopwatch's stop, which the caller reads first thing after the body.</summary>
    [MethodImpl(Harness.Optimized)]
    internal RunWindow Close(in OpenRun open, long stop)
    {
        var cpu = NativeThreadInfo.CurrentThreadCpuTime();
        RunEventSource.Log.RunEnd(open.Start, stop);
        var outerStop = Stopwatch.GetTimestamp();
        var window = new RunWindow(Ms(open.Start, stop), Ms(open.OuterStart, outerStop), (cpu - open.Cpu).TotalMilliseconds, open.WorkerThreadId, open.MarkerThreadId);
        try
        {
            _marker.End();
            open.Probe?.AfterRun();
            var run = open.Run;
            RunEventSource.Log.RunStop(run.Name, run.Operation, run.Data, run.N, run.Run, open.MarkerThreadId, open.WorkerThreadId, window.DurationMs, run.Warmup, run.Operations,
                FirstChanceCount.Now - open.Exceptions);
        }
        finally
        {
            Volatile.Write(ref _busy, 0);
        }
        return window;
    }

    private static double Ms(long from, long to) => (to - from) * 1000.0 / Stopwatch.Frequency;

    /// <summary>
    /// Compiles the code that runs between the body and the run's last event, and writes RunBegin/RunEnd and reads the
    /// clocks once (outside any run, the analyzer ignores these events): otherwise the first run's window would hold
    /// their JIT compilation and the binding of the native calls.
    /// </summary>
    private static void Prepare()
    {
        var names = new[] { nameof(Close), nameof(Open), nameof(Measure) };
        foreach (var method in typeof(RunMarker).GetMethods(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic))
            if (Array.IndexOf(names, method.Name) >= 0) RuntimeHelpers.PrepareMethod(method.MethodHandle);
        RunEventSource.Log.RunBegin();
        _ = FirstChanceCount.Now; // adds the handler: every run's count starts from a counting process
        NativeThreadInfo.CurrentThreadCpuTime();
        NativeThreadInfo.CurrentOsThreadId();
        RunEventSource.Log.RunEnd(0, 0);
    }

    /// <summary>Stops the marker thread if this run marker started it.</summary>
    public void Dispose()
    {
        if (_ownsMarker) _marker.Dispose();
    }
}
