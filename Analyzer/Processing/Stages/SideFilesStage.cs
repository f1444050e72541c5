using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// The files beside the trace whose events join the pass at their place on the clock: the exception sessions' files
/// (a recording's throws without stacks, and samples with them; null: none, as in older recordings), counted by
/// <see cref="StacklessExceptionCollector"/> into <see cref="ExceptionStage"/>, and the stack keywords' file of a trace
/// recorded without stacks, whose lock waits go to <see cref="ContentionStage"/> as the trace's own did.
/// </summary>
internal sealed class SideFilesStage : IPassStage
{
    private readonly ExceptionFiles? _exceptionFiles;
    private readonly StacklessExceptionCollector? _stackless;
    private readonly StackFile? _stackFile;
    private int _nextLockWait;
    /// <summary>The main trace's latest clock value: the files' events after it (a cut or interrupted recording) are not charged.</summary>
    private long _lastQpc;
    private IPass? _pass;
    private Func<int, (RunDraft?, ThreadDraft?)>? _whereThrown;
    private Func<ulong[], int>? _internStack;
    private Action<long, int, bool>? _dispatch;

    /// <summary>Their warnings are said as the pass opens, before any of its own.</summary>
    public SideFilesStage(AnalysisDraft analysis, EventStacks stacks, ExceptionFiles? exceptionFiles, StackFile? stackFile)
    {
        if (exceptionFiles is not null)
        {
            _exceptionFiles = exceptionFiles;
            _stackless = new StacklessExceptionCollector(exceptionFiles);
            analysis.WarningList.AddRange(exceptionFiles.Warnings);
        }
        if (stackFile is not null)
        {
            _stackFile = stackFile;
            analysis.WarningList.AddRange(stackFile.Warnings);
            if (!stacks.NamesAddresses && stackFile.LockWaits.Any(w => w.Start))
                analysis.WarningList.Add($"lock waits: who wanted each lock is unnamed (?) in this analysis: through TraceLog, {Common.TraceFolderLayout.StacksTrace}'s stacks cannot be named");
        }
    }

    private IPass Pass => _pass ?? throw new InvalidOperationException("the side files are read before the pass");

    /// <summary>The throws sampled with their stacks, for the charge's throw sites; null without exception files.</summary>
    public StacklessExceptionCollector? Stackless => _stackless;

    /// <summary>Before each event of the trace (the pass's clock has read it): the files' events up to it.</summary>
    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        _pass = pass;
        if (_stackless is not null)
        {
            _whereThrown = WhereThrown;
            _internStack = pass.Stacks.FromAddresses;
            // The dispatch spans the main trace's exception events gave before they moved out (RuntimeWorkStage).
            var work = pass.Stage<RuntimeWorkStage>().Work;
            _dispatch = (qpc, threadId, start) =>
            {
                var ms = pass.Timeline.Clock.QpcToRelativeMs(qpc);
                if (start) work.Open(threadId, Samples.RuntimeWorkKind.ExceptionDispatch, ms);
                else work.Close(threadId, Samples.RuntimeWorkKind.ExceptionDispatch, ms);
            };
        }
        source.AllEvents += e =>
        {
#pragma warning disable CS0618 // "discouraged": the raw QPC is what the files' events are on
            _stackless?.Before(e.TimeStampQPC, _whereThrown!, _internStack!, _dispatch);
            StackFileBefore(_lastQpc = e.TimeStampQPC);
#pragma warning restore CS0618
        };
    }

    /// <summary>The run and thread an event of this thread is charged to now: the open run's own threads only (no stack to say more).</summary>
    private (RunDraft?, ThreadDraft?) WhereThrown(int threadId)
    {
        var run = Pass.Windows.ChargeableFor(threadId) is { } r && (r.WorkerThreadId == 0 || r.IsRunThread(threadId)) ? r : null;
        return (run, Pass.ThreadOf(threadId));
    }

    /// <summary>The pass is over: the last throws are charged, and all of them counted by site once stacks are named.</summary>
    public void CountStacklessExceptions()
    {
        StackFileBefore(_lastQpc + 1);
        if (_stackless is not { } stackless) return;
        stackless.Before(long.MaxValue, _whereThrown!, _internStack!, _dispatch);
        Pass.WhenNamed(() => stackless.CountInto(Pass.Stage<ExceptionStage>().Collector, (type, stack) => stack < 0
            ? new ExceptionSite(type, CodeSite.UnknownFrame)
            : new ExceptionSite(type, Pass.Named ? ExceptionCollector.ThrowerOf(Pass.Stacks.Frames(stack)) : CodeSite.UnknownFrame, Pass.Stacks.Tag(stack)), Pass.Analysis.Runs));
        Pass.WhenNamed(() => Pass.Analysis.WarningList.Add(StacklessWarning(stackless)));
        if (Pass.Marks is not null) Pass.WhenNamed(MarkStacklessThrows);
    }

    /// <summary>
    /// The throws recorded beside the trace, one mark each: the stackless file's (thrower "?"), named where a sampling
    /// window caught the same throw with its stack, and the windows' own throws after that file stopped.
    /// </summary>
    private void MarkStacklessThrows()
    {
        var files = _exceptionFiles!;
        var sampled = new Dictionary<(long Qpc, int ThreadId), (string Type, string Site)>();
        foreach (var s in files.Samples)
        {
            var stack = _internStack!(s.LeafFirst);
            sampled[(s.Qpc, s.ThreadId)] = (s.Type, stack >= 0 && Pass.Named ? CodeSite.At(ExceptionCollector.ThrowerOf(Pass.Stacks.Frames(stack))).Name : StackFrame.Unresolved);
        }
        void Mark(long qpc, int threadId, string type, string site)
        {
            if (qpc <= _lastQpc) Pass.Marks!.Thrown(new ThrowMark(Pass.Timeline.Clock.QpcToRelativeMs(qpc), threadId, type, site));
        }
        foreach (var t in files.Throws)
            Mark(t.Qpc, t.ThreadId, t.Type, sampled.Remove((t.Qpc, t.ThreadId), out var s) ? s.Site : StackFrame.Unresolved);
        foreach (var ((qpc, threadId), (type, site)) in sampled) Mark(qpc, threadId, type, site);
    }

    /// <summary>
    /// Once warm-ups are known: measured runs that threw while every throw still had an event (before the rate limit, or in a stack window):
    /// their times hold the events' cost, which the tracing-cost blocks (steady state) do not show.
    /// </summary>
    public void WarnRunsWithThrowEvents()
    {
        if (_stackless is not { } stackless) return;
        var runs = stackless.RunsWithThrowEvents([.. Pass.Analysis.Runs.Where(r => r.IsMeasured)]);
        if (runs.Count == 0) return;
        var cases = runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects))
            .Select(g => $"{g.Key.Serializer} {g.Key.Operation} N={g.Key.Objects:N0} run{(g.Count() == 1 ? "" : "s")} {string.Join(", ", g.Select(r => r.Key.Run))}");
        Pass.Analysis.WarningList.Add($"exceptions: {runs.Count} measured run{(runs.Count == 1 ? "" : "s")} threw while each throw still had an event (before the rate limit stopped that session, or in a stack window): "
            + $"{string.Join("; ", cases)}. Their times hold that cost (about as much as the throws); the tracing-cost column does not (docs/recorder.md#exceptions-without-stacks)");
    }

    private static string StacklessWarning(StacklessExceptionCollector stackless)
    {
        if (stackless.Throws == 0 && stackless.ToppedUp == 0) return $"exceptions: none thrown ({Common.TraceFolderLayout.ExceptionsTrace})";
        var sites = $"throw sites from the stacks of {stackless.Sampled:N0} throw{(stackless.Sampled == 1 ? "" : "s")} sampled in {stackless.Windows} window{(stackless.Windows == 1 ? "" : "s")}, scaled to the counts (docs/recorder.md#exceptions-without-stacks)";
        var counted = $"{stackless.Throws:N0} counted without stacks ({Common.TraceFolderLayout.ExceptionsTrace})";
        var more = stackless.ToppedUp == 0 ? "" : stackless.StoppedEarly
            ? $", {stackless.ToppedUp:N0} more in runs counted by the process (RunStop) after that session stopped at a high throw rate"
            : $", {stackless.ToppedUp:N0} more in runs counted by the process (RunStop; other threads' throws during a run count there)";
        var after = stackless.StoppedEarly && stackless.ToppedUp == 0 ? " until that session stopped at a high throw rate; later ones only runs count (RunStop version 2)" : "";
        return $"exceptions: {counted}{more}{after}; {sites}";
    }

    /// <summary>Every lock wait of the stacks file before <paramref name="qpc"/> (at the pass's end: up to the main trace's last event).</summary>
    private void StackFileBefore(long qpc)
    {
        if (_stackFile is not { } file) return;
        var waits = file.LockWaits;
        while (_nextLockWait < waits.Count && waits[_nextLockWait].Qpc < qpc)
        {
            var w = waits[_nextLockWait++];
            var ms = Pass.Timeline.Clock.QpcToRelativeMs(w.Qpc);
            var contention = Pass.Stage<ContentionStage>();
            if (w.Start) contention.Start(w.ThreadId, ms, Pass.Stacks.FromAddresses(w.LeafFirst));
            else contention.Stop(w.ThreadId, ms, Pass.ThreadOf(w.ThreadId));
        }
    }
}
