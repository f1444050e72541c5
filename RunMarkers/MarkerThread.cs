using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// A thread that blocks on an event for exactly the duration of each measured run, so the run shows up in any
/// trace as one wait (EventPipe WaitHandle events, ETW context switches) inside a method named after the
/// operation. Every step is a handshake: Begin returns only once the marker is about to block, End returns only
/// once it has woken, so a wait can never span two runs and no signal is left over for the next one.
/// The low-level piece: <see cref="RunMarker"/> and <see cref="MarkedRuns"/> pair it with the run events and the Stopwatch.
/// </summary>
public sealed class MarkerThread : IDisposable
{
    private readonly AutoResetEvent _go = new(false);
    private readonly AutoResetEvent _armed = new(false);
    private readonly AutoResetEvent _release = new(false);
    private readonly AutoResetEvent _released = new(false);
    private readonly Thread _thread;
    private string? _operation;
    private volatile bool _stopping;
    private bool _inRun;

    /// <summary>
    /// The NoInlining methods the marker waits in, by operation: a trace's stack of the wait names the operation (the
    /// analyzer's runs without run events, the stack tags' "Test Duration"). Any other operation waits in OtherDuration.
    /// </summary>
    public static IReadOnlyDictionary<string, string> WaitMethodByOperation { get; } = new Dictionary<string, string>
    {
        ["serialize"] = nameof(SerializeDuration),
        ["deserialize"] = nameof(DeserializeDuration),
        ["firstcall"] = nameof(FirstCallDuration),
    };

    /// <summary>The marker's OS thread id: RunStart's MarkerThreadId, the thread whose wait is the run.</summary>
    public int OsThreadId { get; private set; }

    /// <summary>When the marker's wait began and ended (Stopwatch ticks), for tests that check the handshake.</summary>
    public long LastWaitStart { get; private set; }
    /// <summary>When the marker's last wait ended (Stopwatch ticks).</summary>
    public long LastWaitEnd { get; private set; }

    /// <summary>Starts the marker thread (a background thread named "Run marker") and returns once it runs.</summary>
    public MarkerThread()
    {
        using var started = new ManualResetEventSlim(false);
        _thread = new Thread(() =>
        {
            OsThreadId = NativeThreadInfo.CurrentOsThreadId();
            started.Set();
            Loop();
        })
        { IsBackground = true, Name = "Run marker" };
        _thread.Start();
        started.Wait();
    }

    /// <summary>Arms the marker: on return the marker thread is in its wait for this operation.</summary>
    public void Begin(string operation)
    {
        if (_inRun) throw new InvalidOperationException("MarkerThread.Begin called twice without End");
        _inRun = true;
        _operation = operation;
        _go.Set();
        _armed.WaitOne();
        AwaitMarkerInWait();
    }

    /// <summary>Longest <see cref="AwaitMarkerInWait"/> looks before it gives up on a runtime that does not report waits.</summary>
    private static readonly TimeSpan InWaitPatience = TimeSpan.FromMilliseconds(20);
    /// <summary>
    /// The same once the runtime has shown the state: the marker will reach its wait, only later. At 20 ms a marker
    /// preempted longer (a clean-clone CI run beside a busy loop, 2 cores) let a 0.5 ms warm-up end before it blocked.
    /// </summary>
    private static readonly TimeSpan SeenInWaitPatience = TimeSpan.FromSeconds(1);
    private bool _waitStateUnreported;
    private bool _waitStateSeen;

    /// <summary>Whether the marker thread is in a wait now, as the runtime reports it.</summary>
    private bool Waiting => (_thread.ThreadState & ThreadState.WaitSleepJoin) != 0;

    /// <summary>
    /// Returns once the marker thread is inside its wait on <c>_release</c>. <c>_armed</c> is set just before that
    /// wait, and a wait that finds its event already set returns without blocking, so without this a run shorter than
    /// the marker's lag (preempted after <c>_armed.Set</c>, both cores busy) ended before the marker blocked: no
    /// WaitHandleWaitStart, no context switch, no run in a trace without run events (the first 0.4 ms warm-up,
    /// 2 of 5 recordings under two `yes` loops, 2026-11-24). The runtime marks a thread WaitSleepJoin while it waits,
    /// and it can only be waiting on <c>_release</c> here, which no one sets before this returns. A runtime that never
    /// shows the state costs <see cref="InWaitPatience"/> once, then is not asked again; where it has shown it, the
    /// patience is <see cref="SeenInWaitPatience"/>.
    /// </summary>
    private void AwaitMarkerInWait()
    {
        if (_waitStateUnreported) return;
        var spinner = new SpinWait();
        var patience = _waitStateSeen ? SeenInWaitPatience : InWaitPatience;
        var deadline = System.Diagnostics.Stopwatch.GetTimestamp() + (long)(patience.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
        while (!Waiting)
        {
            if (System.Diagnostics.Stopwatch.GetTimestamp() > deadline)
            {
                _waitStateUnreported = !_waitStateSeen;
                return;
            }
            spinner.SpinOnce();
        }
        _waitStateSeen = true;
    }

    /// <summary>Releases the marker: on return the marker has woken and recorded the end of its wait.</summary>
    public void End()
    {
        if (!_inRun) throw new InvalidOperationException("MarkerThread.End called without Begin");
        _release.Set();
        _released.WaitOne();
        _inRun = false;
    }

    private void Loop()
    {
        while (true)
        {
            Idle();
            if (_stopping) return;
            switch (_operation)
            {
                case "serialize": SerializeDuration(); break;
                case "deserialize": DeserializeDuration(); break;
                case "firstcall": FirstCallDuration(); break;
                default: OtherDuration(); break;
            }
            _released.Set();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Idle() => _go.WaitOne();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void SerializeDuration() => WaitForRelease();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void DeserializeDuration() => WaitForRelease();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void FirstCallDuration() => WaitForRelease();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void OtherDuration() => WaitForRelease();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WaitForRelease()
    {
        LastWaitStart = System.Diagnostics.Stopwatch.GetTimestamp();
        _armed.Set();
        _release.WaitOne();
        LastWaitEnd = System.Diagnostics.Stopwatch.GetTimestamp();
    }

    /// <summary>Ends a run still open, then stops the thread.</summary>
    public void Dispose()
    {
        if (_inRun) End();
        _stopping = true;
        _go.Set();
        _thread.Join();
        _go.Dispose();
        _armed.Dispose();
        _release.Dispose();
        _released.Dispose();
    }
}
