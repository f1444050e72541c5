namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// Weights each EventPipe thread sample by the time since that thread's previous sample, capped so that gaps
/// (GC suspensions, a starved sampler) are not charged to whatever stack happens to be sampled next.
/// The interval is observed, not assumed: runtimes and loaded machines differ.
/// </summary>
public sealed class SampleWeigher
{
    private const double AssumedIntervalMs = 1.0;
    private const int IntervalSamplesNeeded = 64;
    private readonly Dictionary<int, double> _lastByThread = [];
    private readonly List<double> _tickDeltas = [];
    private double _lastTick = double.NaN;
    private double? _observedInterval;

    public double IntervalMs => _observedInterval ?? AssumedIntervalMs;
    public double? ObservedIntervalMs => _observedInterval ?? (_tickDeltas.Count > 4 ? Median(_tickDeltas) : null);

    public double Weigh(int threadId, double timeMs)
    {
        ObserveTick(timeMs);
        var cap = 4 * IntervalMs;
        var weight = _lastByThread.TryGetValue(threadId, out var last) ? Math.Clamp(timeMs - last, 0, cap) : IntervalMs;
        _lastByThread[threadId] = timeMs;
        return weight;
    }

    /// <summary>All threads are sampled at one tick; distinct timestamps more than 0.1 ms apart are ticks.</summary>
    private void ObserveTick(double timeMs)
    {
        if (_observedInterval is not null) return;
        if (!double.IsNaN(_lastTick) && timeMs - _lastTick < 0.1) return;
        if (!double.IsNaN(_lastTick)) _tickDeltas.Add(timeMs - _lastTick);
        _lastTick = timeMs;
        if (_tickDeltas.Count >= IntervalSamplesNeeded) _observedInterval = Median(_tickDeltas);
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted[sorted.Count / 2];
    }
}
