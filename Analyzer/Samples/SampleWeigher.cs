using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// Tracks, per thread, when it was last sampled, and the sampler's real interval. A sample stands for the time
/// since that thread's previous sample (PerfView's rule). GC pauses are taken out of a gap by the caller; what
/// remains is a sampler that was starved while the thread ran, so only absurd gaps are capped.
/// </summary>
internal sealed class SampleWeigher
{
    private const double AssumedIntervalMs = 1.0;
    private const int IntervalSamplesNeeded = 64;
    private const double CapIntervals = 50;
    private readonly Dictionary<int, double> _lastByThread = [];
    private readonly List<double> _tickDeltas = [];
    private double _lastTick = double.NaN;
    private double? _observedInterval;

    public double IntervalMs => _observedInterval ?? AssumedIntervalMs;
    public double? ObservedIntervalMs => _observedInterval ?? (_tickDeltas.Count > 4 ? Median.Upper(_tickDeltas) : null);

    /// <summary>Records a sample of the thread at timeMs and returns when it was sampled before (one interval ago if never).</summary>
    public double Previous(int threadId, double timeMs)
    {
        ObserveTick(timeMs);
        var previous = _lastByThread.TryGetValue(threadId, out var last) ? last : timeMs - IntervalMs;
        _lastByThread[threadId] = timeMs;
        return previous;
    }

    public double Cap(double weightMs) => Math.Clamp(weightMs, 0, CapMs);

    /// <summary>The largest weight a sample may have now: gaps longer than this are a starved sampler, not work.</summary>
    public double CapMs => CapIntervals * IntervalMs;

    /// <summary>All threads are sampled at one tick; distinct timestamps more than 0.1 ms apart are ticks.</summary>
    private void ObserveTick(double timeMs)
    {
        if (_observedInterval is not null) return;
        if (!double.IsNaN(_lastTick) && timeMs - _lastTick < 0.1) return;
        if (!double.IsNaN(_lastTick)) _tickDeltas.Add(timeMs - _lastTick);
        _lastTick = timeMs;
        if (_tickDeltas.Count >= IntervalSamplesNeeded) _observedInterval = Median.Upper(_tickDeltas);
    }
}
