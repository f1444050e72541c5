namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>
/// Puts perf's timestamps on the EventPipe trace's time line. Both are CLOCK_MONOTONIC on Linux (the recorder runs
/// perf with -k CLOCK_MONOTONIC; the runtime's QueryPerformanceCounter reads the same clock), so one origin and
/// one rate, read off two EventPipe events (raw QPC and TraceEvent's relative milliseconds), convert exactly.
/// </summary>
internal sealed class KernelClock
{
    private long? _firstQpc;
    private double _firstMs;
    private long _lastQpc;
    private double _lastMs;

    /// <summary>Feed EventPipe events as they come; the first and the last set the origin and the rate.</summary>
    public void Observe(long qpc, double relativeMs)
    {
        if (_firstQpc is null) { _firstQpc = qpc; _firstMs = relativeMs; }
        _lastQpc = qpc;
        _lastMs = relativeMs;
    }

    public bool Known => _firstQpc is not null;

    /// <summary>A raw clock value of the same process near the last event seen (another file's event), on the pass's time line.</summary>
    public double QpcToRelativeMs(long qpc) => _firstQpc is null ? 0 : _lastMs + (qpc - _lastQpc) / TicksPerMs;

    /// <summary>QPC ticks per millisecond: 1e6 on Linux (nanoseconds); measured, in case a runtime ever differs.</summary>
    public double TicksPerMs => _firstQpc is { } first && _lastMs - _firstMs > 1 ? (_lastQpc - first) / (_lastMs - _firstMs) : 1e6;

    public double ToRelativeMs(long monotonicNs)
    {
        if (_firstQpc is not { } first) throw new InvalidOperationException("no EventPipe event seen yet");
        // Ticks are nanoseconds when the rate is 1e6 per ms; otherwise scale perf's nanoseconds into ticks first.
        var ticks = TicksPerMs is var rate && Math.Abs(rate - 1e6) < 1 ? monotonicNs : monotonicNs * (rate / 1e6);
        return _firstMs + (ticks - first) / TicksPerMs;
    }
}
