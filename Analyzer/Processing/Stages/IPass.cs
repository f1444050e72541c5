using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// What the pass shares with its stages (<see cref="IPassStage"/>): the draft, the stacks, the run and thread an event
/// is charged to. Anything else a stage keeps itself, or asks of another stage (<see cref="Stage{T}"/>).
/// </summary>
internal interface IPass
{
    AnalysisDraft Analysis { get; }
    EventStacks Stacks { get; }
    AnalyzerOptions Options { get; }
    PassTimeline Timeline { get; }

    /// <summary>What happened when, for a time line (<see cref="AnalyzerOptions.KeepMarks"/>); null: the tables only.</summary>
    TraceMarksDraft? Marks => Analysis.Marks;

    /// <summary>Stack tags were given: the pass names code from stacks (without them it never did).</summary>
    bool Named => Stacks.Matcher is not null;

    /// <summary>Whose events count: the one process, or on ETW the benchmark's out of the machine.</summary>
    Sources.IProcessScope Scope { get; }

    /// <summary>The run windows: the open run is what the stages charge.</summary>
    RunWindows Windows { get; }

    /// <summary>The open run, whoever's event it is (what a stop closes).</summary>
    RunDraft? OpenRun => Windows.Open;

    /// <summary>The open run, if the event belongs to it: raised on one of its threads, or on another while it runs the measured call.</summary>
    RunDraft? RunOf(TraceEvent e, int? stack = null);

    /// <summary>The same for an event read beside the trace, by its thread and stack (-1: none).</summary>
    RunDraft? RunOf(int threadId, int stack);

    /// <summary>The event's thread, if its process is the recorded one.</summary>
    ThreadDraft? ThreadOf(TraceEvent e);

    /// <summary>A thread of the recorded process by id.</summary>
    ThreadDraft ThreadOf(int threadId);

    /// <summary>An ETW trace holds every process on the machine; an EventPipe trace only the recorded one.</summary>
    bool InProcess(TraceEvent e);

    /// <summary>Counts a site named from a stack once stacks can be named (a raw pass: after its rundown, at the end).</summary>
    void WhenNamed(Action count);

    /// <summary>Another stage of the pass, by its type.</summary>
    T Stage<T>() where T : IPassStage;
}
