namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// T threads that run one piece of work together per <see cref="Run"/>, created once per serializer and object
/// count for --threads. Reusing them across runs keeps per-thread one-time costs (ArrayPool.Shared registering a
/// new thread's buckets under a lock, [ThreadStatic] caches) in the warm-up run, as on a server whose threads
/// outlive requests; fresh threads per run showed that registration as lock contention in every measured run.
/// Each worker waits on its own event, so releasing them takes no lock they would contend on. The crew knows its
/// threads' OS ids (named in the trace per run by RunThread events) and reads their CPU clocks from outside
/// (<see cref="CpuTime"/>): the in-process truth of a concurrent run's CPU.
/// </summary>
public sealed class WorkerCrew : IDisposable
{
    private readonly Thread[] _threads;
    private readonly ManualResetEventSlim[] _go;
    private readonly CountdownEvent _done;
    private readonly int[] _osThreadIds;
    private readonly List<Exception> _failures = [];
    private Action<int>? _work;
    private volatile bool _stopping;

    public WorkerCrew(int count, string name)
    {
        // No spinning before blocking (SpinCount 0): a worker done early, or the whole crew after a run, would otherwise
        // spin (sched_yield) for the CPUs the others need. 64 spinning workers on 2 cores held the worker's wake-up
        // after the window for milliseconds and burnt a third of the crew's CPU clock outside the window.
        _go = [.. Enumerable.Range(0, count).Select(_ => new ManualResetEventSlim(false, spinCount: 0))];
        _done = new CountdownEvent(count);
        _osThreadIds = new int[count];
        using var started = new CountdownEvent(count);
        _threads = [.. Enumerable.Range(0, count).Select(i => new Thread(() => Loop(i, started)) { IsBackground = true, Name = $"{name} {i}" })];
        foreach (var t in _threads) t.Start();
        started.Wait(); // every worker has said its OS thread id
    }

    public int Count => _threads.Length;

    /// <summary>The workers' OS thread ids (what the trace knows them by), in worker order.</summary>
    public IReadOnlyList<int> OsThreadIds => _osThreadIds;

    /// <summary>
    /// The workers' CPU clocks summed (each read from this thread: <see cref="RunMarkers.NativeThreadInfo.ThreadCpuTime"/>);
    /// null where the OS has no clock of another thread (only Linux has one here).
    /// </summary>
    public TimeSpan? CpuTime()
    {
        var sum = TimeSpan.Zero;
        foreach (var id in _osThreadIds)
        {
            if (RunMarkers.NativeThreadInfo.ThreadCpuTime(id) is not { } cpu) return null;
            sum += cpu;
        }
        return sum;
    }

    /// <summary>Runs work(i) on every worker at once and returns when all are done; failures are rethrown together.</summary>
    public void Run(Action<int> work)
    {
        _failures.Clear();
        _work = work;
        _done.Reset(_threads.Length);
        foreach (var go in _go) go.Set();
        _done.Wait();
        if (_failures.Count > 0) throw new AggregateException($"{_failures.Count} of {_threads.Length} threads failed", _failures);
    }

    private void Loop(int index, CountdownEvent started)
    {
        _osThreadIds[index] = RunMarkers.NativeThreadInfo.CurrentOsThreadId();
        started.Signal();
        while (true)
        {
            _go[index].Wait();
            _go[index].Reset(); // before the work: the next Set comes only after every worker has signalled this run done
            if (_stopping) return;
            try { _work!(index); }
            catch (Exception ex) { lock (_failures) _failures.Add(ex); }
            finally { _done.Signal(); }
        }
    }

    public void Dispose()
    {
        _stopping = true;
        foreach (var go in _go) go.Set();
        foreach (var t in _threads) t.Join();
        foreach (var go in _go) go.Dispose();
        _done.Dispose();
    }
}
