using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>The trace's own throws, by run, thread and site (<see cref="ExceptionCollector"/>); the throws kept beside the trace join these counts.</summary>
internal sealed class ExceptionStage : IPassStage
{
    /// <summary>The counts, which the throws read from the exception files join.</summary>
    public ExceptionCollector Collector { get; } = new();

    public ClrEventFamily? Missing => Collector.Seen ? null : new("exceptions (CLR Exception keyword 0x8000)", 0x8000, System.Diagnostics.Tracing.EventLevel.Informational);

    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        var stacks = pass.Stacks;
        source.Clr.ExceptionStart += e =>
        {
            var stack = stacks.StackOf(e);
            var (run, thread, type) = (pass.RunOf(e, stack), pass.ThreadOf(e), e.ExceptionType);
            var (ms, threadId, mark) = (e.TimeStampRelativeMSec, e.ThreadID, pass.Marks is not null && pass.InProcess(e));
            pass.WhenNamed(() =>
            {
                var frame = pass.Named ? ExceptionCollector.ThrowerOf(stacks.Frames(stack)) : CodeSite.UnknownFrame;
                var site = new ExceptionSite(type, frame, stacks.Tag(stack));
                Collector.Thrown(run, thread, site);
                if (mark) pass.Marks!.Thrown(new ThrowMark(ms, threadId, type, site.Frame));
            });
        };
    }
}
