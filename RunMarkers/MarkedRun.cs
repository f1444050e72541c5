using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// A run opened by <see cref="MarkedRuns.Start"/>: its window is open until <see cref="Stop"/> or <see cref="Dispose"/>,
/// which must be called on the thread that started it.
/// </summary>
public sealed class MarkedRun : IDisposable
{
    private readonly RunMarker _marker;
    private readonly int _thread;
    private OpenRun _open;
    private bool _stopped;

    internal MarkedRun(RunMarker marker, RunInfo info, int thread)
    {
        _marker = marker;
        Info = info;
        _thread = thread;
    }

    /// <summary>What the run is, with the number it was given.</summary>
    public RunInfo Info { get; }

    /// <summary>What the run measured, once it is stopped; null while it is open.</summary>
    public RunTiming? Timing { get; private set; }

    [MethodImpl(Harness.Optimized)]
    internal void Open(IRunProbe probe) => _open = _marker.Open(Info, probe);

    /// <summary>Ends the run now and returns what it measured.</summary>
    /// <exception cref="InvalidOperationException">
    /// The run was stopped already, or this is not the thread that started it (an await inside the run): the run is
    /// closed all the same, so the next one can start, but its figures are not the run's.
    /// </exception>
    [MethodImpl(Harness.Optimized)]
    public RunTiming Stop()
    {
        var stop = Stopwatch.GetTimestamp();
        if (_stopped) throw new InvalidOperationException($"{Info.Name} {Info.Operation} run {Info.Run} was stopped already");
        _stopped = true;
        RunTiming timing;
        try
        {
            timing = MarkedRuns.Timing(Info, _marker.Close(_open, stop));
        }
        finally
        {
            MarkedRuns.Release();
        }
        if (Environment.CurrentManagedThreadId != _thread)
            throw new InvalidOperationException($"{Info.Name} {Info.Operation} run {Info.Run} was stopped on another thread than the one that started it (an await inside the run?): closed, but not measured");
        Timing = timing;
        return timing;
    }

    /// <summary>Stops the run if it is still open (for example when its body threw).</summary>
    public void Dispose()
    {
        if (!_stopped) Stop();
    }
}
