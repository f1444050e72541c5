using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// Lock waits, by run, thread and the code that wanted the lock (<see cref="ContentionCollector"/>): the trace's own,
/// and those of the stacks file beside a trace recorded without stacks (through <see cref="Start"/> and <see cref="Stop"/>).
/// </summary>
internal sealed class ContentionStage : IPassStage
{
    private readonly ContentionCollector _contention = new();
    private IPass? _pass;

    public ClrEventFamily? Missing => _contention.Seen ? null : new("lock contention (CLR Contention keyword 0x4000)", 0x4000, System.Diagnostics.Tracing.EventLevel.Informational);

    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        _pass = pass;
        _contention.Marks = pass.Marks;
        source.Clr.ContentionStart += e => Start(e.ThreadID, e.TimeStampRelativeMSec, pass.Stacks.StackOf(e));
        source.Clr.ContentionStop += e => Stop(e.ThreadID, e.TimeStampRelativeMSec, pass.ThreadOf(e));
    }

    /// <summary>A wait starts: the run is found now, the code that wanted the lock once stacks are named.</summary>
    public void Start(int threadId, double ms, int stack)
    {
        var pass = _pass!;
        var inRun = pass.RunOf(threadId, stack) is not null;
        pass.WhenNamed(() =>
        {
            var taker = !pass.Named || stack < 0 ? CodeSite.UnknownFrame : ContentionCollector.TakerOf(pass.Stacks.Frames(stack));
            _contention.Start(threadId, ms, CodeSite.At(taker, pass.Stacks.Tag(stack)), inRun);
        });
    }

    public void Stop(int threadId, double ms, ThreadDraft? thread)
    {
        var open = _pass!.OpenRun;
        _pass.WhenNamed(() => _contention.Stop(threadId, ms, open, thread));
    }

    /// <summary>The runs' waits go on the time line.</summary>
    public void Finish(IPass pass) => pass.Timeline.Contention.AddRange(_contention.RunWaits);
}
