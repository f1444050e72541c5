using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// Where the marker thread's waits (the run windows' edges) come from. EventPipe: the runtime's WaitHandle events
/// (<see cref="WaitHandleWaits"/>). ETW: the kernel's context switches of the marker thread
/// (<see cref="ContextSwitchWaits"/>, also on .NET Framework, which has no WaitHandle events). Chosen once when the
/// trace is opened (<see cref="TraceSources"/>).
/// </summary>
internal interface IMarkerWaits
{
    /// <summary>Subscribes to the events the waits are read from; what it finds goes to <paramref name="sink"/>.</summary>
    void Subscribe(TraceEventDispatcher source, IMarkerWaitSink sink);

    /// <summary>A run event, in trace order, right after the pass read it.</summary>
    void RunMark(RunMark mark);

    /// <summary>Said when runs were found but no marker wait: what the trace lacked.</summary>
    string NoWaitsWarning { get; }

    /// <summary>Lost events that left runs without a marker wait, or null.</summary>
    string? LostWarning { get; }
}

/// <summary>The pass's side of <see cref="IMarkerWaits"/>: a WaitHandle wait's start and stop, or a wait found whole.</summary>
internal interface IMarkerWaitSink
{
    void WaitStart(TraceEvent e);
    void WaitStop(TraceEvent e);
    void MarkerWait(MarkerWait wait);
}

/// <summary>EventPipe: the runtime's WaitHandleWaitStart and Stop (CLR keyword 0x40000000000, .NET 9+).</summary>
internal sealed class WaitHandleWaits : IMarkerWaits
{
    private static readonly Guid ClrProvider = new("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    private const int WaitStartId = 301;
    private const int WaitStopId = 302;

    public void Subscribe(TraceEventDispatcher source, IMarkerWaitSink sink)
    {
        // GUIDs, not names: this runs for every event, and a name is a string comparison each time.
        source.AllEvents += e =>
        {
            if (e.ProviderGuid != ClrProvider) return;
            var id = (int)e.ID;
            if (id == WaitStartId) sink.WaitStart(e);
            else if (id == WaitStopId) sink.WaitStop(e);
        };
    }

    public void RunMark(RunMark mark) { }

    public string NoWaitsWarning => "no WaitHandle events (keyword 0x40000000000, .NET 9+): run windows come from RunStart/RunStop events";

    public string? LostWarning => null;
}

/// <summary>ETW: the marker's waits from the kernel's context switches (<see cref="MarkerSwitchDetector"/>), what WPA shows.</summary>
internal sealed class ContextSwitchWaits : IMarkerWaits
{
    private readonly MarkerSwitchDetector _switches = new();
    private IMarkerWaitSink? _sink;

    public void Subscribe(TraceEventDispatcher source, IMarkerWaitSink sink)
    {
        _sink = sink;
        source.Kernel.ThreadCSwitch += e =>
        {
            var cs = new ContextSwitch(e.TimeStampRelativeMSec, e.OldThreadID, e.NewThreadID, e.OldThreadState == System.Diagnostics.ThreadState.Wait);
            if (_switches.OnContextSwitch(cs) is { } wait) sink.MarkerWait(wait);
        };
    }

    public void RunMark(RunMark mark)
    {
        switch (mark.Kind)
        {
            case RunMarkKind.Start: _switches.RunStart(mark.TimeMs, mark.MarkerThreadId, mark.WorkerThreadId); break;
            case RunMarkKind.Stop: if (_switches.RunStop(mark.TimeMs, mark.MarkerThreadId) is { } wait) _sink?.MarkerWait(wait); break;
            case RunMarkKind.Begin: _switches.RunBegin(mark.TimeMs, mark.WorkerThreadId); break;
            case RunMarkKind.End: _switches.RunEnd(mark.TimeMs, mark.WorkerThreadId); break;
        }
    }

    public string NoWaitsWarning => "no marker waits found in context switches (kernel ContextSwitch keyword off?): run windows come from RunBegin/RunEnd or RunStart/RunStop";

    public string? LostWarning => _switches.LostSwitches > 0
        ? $"{_switches.LostSwitches} context switches of marker threads are missing (lost events): {_switches.RunsWithoutWait} run(s) have no marker wait"
        : null;
}
