using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>Where the runtime's tiering machine is, by its own events.</summary>
public enum TieringPhase
{
    /// <summary>The call-counting delay is on: some method ran for the first time within the delay, so no call is counted yet.</summary>
    Delay,
    /// <summary>The background compiler has methods queued (promotions not yet compiled).</summary>
    Compiling,
    /// <summary>Calls are counted and nothing is queued.</summary>
    Idle,
}

/// <summary>The tiering machine at one moment: its phase, the methods queued, and when it last reported (Stopwatch timestamp).</summary>
/// <param name="MaxDeliveryMs">The longest an event took to reach the listener so far (EventListener dispatches from its own thread).</param>
public readonly record struct TieringState(TieringPhase Phase, int Pending, long LastEventTimestamp, long Events, double MaxDeliveryMs);

/// <summary>
/// The runtime's own account of tiered compilation, in process: an EventListener on the runtime's event source
/// (NativeRuntimeEventSource, keyword Compilation) receives TieredCompilationPause (the call-counting delay starts),
/// TieredCompilationResume (it ends: call counting begins), TieredCompilationBackgroundJitStart/Stop (the background
/// compiler works through its queue, with the count still queued).
/// <para>
/// Why: JitInfo's count cannot see the delay. Any method's first call restarts it, precompiled (ReadyToRun) methods
/// included, which compile nothing: a finalizer or the harness calling a core-library method for the first time
/// held the delay on for 440 ms with the JIT count flat, and on a busy machine the background compiler worked off a
/// queue of 100+ methods for seconds (issue 22, .NET 10, Reflection deserialize N=1,000: the warm-up said steady while
/// perf saw 29% of the measured samples in tier-0 code). These events are rare (a few per delay or compile batch), so
/// listening costs little; the listener's own code is compiled optimized at once, so it is no tier-0 code itself.
/// </para>
/// </summary>
public sealed class TieringWatch : EventListener
{
    private const string RuntimeSource = "Microsoft-Windows-DotNETRuntime";
    private const EventKeywords CompilationKeyword = (EventKeywords)0x1000000000;
    private const int Pause = 281, Resume = 282, BackgroundJitStart = 283, BackgroundJitStop = 284;

    private readonly object _gate = new();
    // The delay is on when listening starts: start-up has just run new methods, and so has creating this listener. If
    // it had ended before, this listener's own first calls start it again (the Pause may come before the session
    // does); either way a Resume ends it. (Field initializers run before the base constructor enables the source.)
    private TieringPhase _phase = TieringPhase.Delay;
#pragma warning disable CS0414 // read only where the runtime has the source (not .NET Framework)
    private bool _listening;
#pragma warning restore CS0414
    private int _pending;
    private long _last;
    private long _events;

    private double _maxDeliveryMs;

    /// <summary>A watch when the runtime tiers and has the event (.NET 5+); null otherwise (the JIT's count decides alone).</summary>
    public static TieringWatch? Start(TieringSettings tiering)
    {
#if NETFRAMEWORK
        return null;
#else
        // Where EventSource is switched off (a trimmed app) the runtime's source never shows up: no watch, the JIT count decides.
        if (!tiering.Tiered) return null;
        var watch = new TieringWatch();
        if (watch._listening) return watch;
        watch.Dispose();
        return null;
#endif
    }

    [MethodImpl(HarnessCode.Optimized)]
    public TieringState Read()
    {
        lock (_gate) return new TieringState(_phase, _pending, _last, _events, _maxDeliveryMs);
    }

    protected override void OnEventSourceCreated(EventSource source)
    {
        // Called from the base constructor for the sources that exist already.
        if (source.Name != RuntimeSource) return;
        EnableEvents(source, EventLevel.Informational, CompilationKeyword);
        _listening = true;
    }

    [MethodImpl(HarnessCode.Optimized)]
    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (e.EventId is < Pause or > BackgroundJitStop) return;
        var now = Stopwatch.GetTimestamp();
#if NETFRAMEWORK
        var delivery = 0.0; // never constructed there (Start returns null)
#else
        var delivery = (DateTime.UtcNow - e.TimeStamp).TotalMilliseconds;
#endif
        lock (_gate)
        {
            _events++;
            // Dated at delivery, never earlier than it happened: the safe side for "idle since".
            _last = now;
            if (delivery > _maxDeliveryMs) _maxDeliveryMs = delivery;
            switch (e.EventId)
            {
                case Pause: _phase = TieringPhase.Delay; break;
                // Call counting starts; work queued meanwhile shows as a BackgroundJitStart.
                case Resume: _phase = _pending > 0 ? TieringPhase.Compiling : TieringPhase.Idle; break;
                case BackgroundJitStart:
                    _pending = Count(e);
                    _phase = TieringPhase.Compiling;
                    break;
                case BackgroundJitStop:
                    _pending = Count(e);
                    // A stop with methods left is a yield (the worker goes on) or the delay (a Pause says so).
                    if (_phase != TieringPhase.Delay) _phase = _pending > 0 ? TieringPhase.Compiling : TieringPhase.Idle;
                    break;
            }
        }
    }

    /// <summary>The payload's PendingMethodCount, looked up by name (the field order differs between the manifest and its managed mirror).</summary>
    [MethodImpl(HarnessCode.Optimized)]
    private static int Count(EventWrittenEventArgs e)
    {
        var names = e.PayloadNames;
        var values = e.Payload;
        if (names is null || values is null) return 0;
        for (var i = 0; i < names.Count && i < values.Count; i++)
            if (names[i] == "PendingMethodCount" && values[i] is IConvertible c) return c.ToInt32(System.Globalization.CultureInfo.InvariantCulture);
        return 0;
    }
}
