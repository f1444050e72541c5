using System.Reflection;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// Marks runs of your own code so <c>esp analyze</c> reports them like the benchmark's: one row per name, operation
/// and N, warm-ups left out, every figure per run and per operation.
/// <code>
/// for (var i = 0; i &lt; 8; i++)
///     MarkedRuns.Measure("Orders", "serialize", n: orders.Count, () => JsonSerializer.Serialize(orders), warmup: i &lt; 3);
/// </code>
/// Runs are numbered for you, per name, operation and N, from 0. One run is open at a time in the process, as the
/// analyzer reads runs: a run started on another thread waits until the open one ends (outside its window); a run
/// started inside a run on the same thread is an error. The figures are the calling thread's; work the body hands to
/// other threads is not charged to the run, in-process or in the trace.
/// </summary>
public static class MarkedRuns
{
    private static readonly SemaphoreSlim OneRunAtATime = new(1, 1);
    private static readonly Dictionary<(string Name, string Operation, int N), int> NextRun = new();
    private static readonly ThreadProbe Probe = new();
    private static RunMarker? s_marker;
    /// <summary>The managed thread id of the thread whose run is open, 0 when none: how a nested run is told from a waiting one.</summary>
    private static int s_owner;
    private static MethodInfo? s_lastSynchronousBody;

    static MarkedRuns()
    {
        // The code between a run's body and its RunEnd, compiled before the first run rather than inside it.
        RuntimeHelpers.PrepareMethod(typeof(MarkedRun).GetMethod(nameof(MarkedRun.Stop))!.MethodHandle);
    }

    /// <summary>The provider a trace must enable for the run events (esp record's profiles do).</summary>
    public const string ProviderName = RunEventSource.ProviderName;

    /// <summary>Runs <paramref name="body"/> on the calling thread as one marked run and returns what it measured.</summary>
    /// <param name="name">The case (the analyzer's first column, RunStart's Serializer field).</param>
    /// <param name="operation">"serialize", "deserialize" or a word of your own: one analyzer table per operation.</param>
    /// <param name="n">The size of the work (the analyzer's N column); 0 if none.</param>
    /// <param name="body">The measured work and nothing else: prepare its input before the call. Synchronous: an async lambda is refused.</param>
    /// <param name="warmup">A warm-up run: marked in the trace and left out of the analyzer's means.</param>
    /// <param name="operations">Calls of the operation inside the body; the analyzer reports per call.</param>
    /// <param name="data">What the run works on (RunStart's Data field), optional.</param>
    /// <exception cref="ArgumentException">A missing name or operation, a negative N, fewer than one operation, an async body.</exception>
    /// <exception cref="InvalidOperationException">A run is already open on this thread.</exception>
    [MethodImpl(Harness.Optimized)]
    public static RunTiming Measure(string name, string operation, int n, Action body, bool warmup = false, int operations = 1, string data = "")
    {
        if (body is null) throw new ArgumentNullException(nameof(body));
        RejectAsync(body);
        using var run = Start(name, operation, n, warmup, operations, data);
        body();
        return run.Stop();
    }

    /// <summary>
    /// Opens a run on the calling thread; it ends at <see cref="MarkedRun.Stop"/> (which returns the figures) or at
    /// Dispose, on the same thread. For work that cannot be a lambda (spans, ref locals):
    /// <code>
    /// using (var run = MarkedRuns.Start("Parse", "deserialize", n: bytes.Length)) { Parse(bytes.AsSpan()); timing = run.Stop(); }
    /// </code>
    /// </summary>
    /// <inheritdoc cref="Measure" path="/param"/>
    /// <exception cref="ArgumentException">A missing name or operation, a negative N, fewer than one operation.</exception>
    /// <exception cref="InvalidOperationException">A run is already open on this thread.</exception>
    [MethodImpl(Harness.Optimized)]
    public static MarkedRun Start(string name, string operation, int n, bool warmup = false, int operations = 1, string data = "")
    {
        var info = new RunInfo(name, operation, data, n, 0, warmup, operations);
        var thread = Environment.CurrentManagedThreadId;
        if (Volatile.Read(ref s_owner) == thread)
            throw new InvalidOperationException($"a run is already open on this thread: runs do not nest (starting {name} {operation})");
        OneRunAtATime.Wait();
        try
        {
            var marker = s_marker ??= new RunMarker();
            var key = (info.Name, info.Operation, info.N);
            NextRun.TryGetValue(key, out var number);
            // Allocated before the probe's first reading, so the run's allocated bytes do not count it.
            var run = new MarkedRun(marker, info.WithRun(number), thread);
            s_owner = thread;
            run.Open(Probe);
            NextRun[key] = number + 1;
            return run;
        }
        catch
        {
            Release();
            throw;
        }
    }

    /// <summary>The figures of the run that just closed: read before another thread's run can overwrite them.</summary>
    internal static RunTiming Timing(RunInfo run, RunWindow window) => new(run, window, Probe.AllocatedBytes);

    internal static void Release()
    {
        Volatile.Write(ref s_owner, 0);
        OneRunAtATime.Release();
    }

    /// <summary>
    /// An async lambda passed as an Action returns at its first await: the run would end there and its remainder run
    /// unmeasured on another thread. Checked once per method, outside the window.
    /// </summary>
    private static void RejectAsync(Action body)
    {
        var method = body.Method;
        if (ReferenceEquals(method, s_lastSynchronousBody)) return;
        if (method.IsDefined(typeof(AsyncStateMachineAttribute), inherit: false))
            throw new ArgumentException("the body is async: a run measures synchronous work on one thread (await before or after the run)", nameof(body));
        s_lastSynchronousBody = method;
    }
}
