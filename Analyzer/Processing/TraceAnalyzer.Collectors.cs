using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// What the collectors' stages (Processing/Stages) share: the code map their stacks are named from, and the
    /// exception and stack files beside the trace, whose events go to those stages at their place on the clock.
    /// </summary>
    private sealed partial class PassState
    {
        private StacklessExceptionCollector? _stackless;
        private ExceptionFiles? _exceptionFiles;
        private Func<int, (RunDraft?, ThreadDraft?)>? _whereThrown;
        private Func<ulong[], int>? _internStack;
        private Action<long, int, bool>? _dispatch;

        /// <summary>
        /// The exception sessions' files beside the trace (null: none, as in older recordings): their throws are counted
        /// by <see cref="StacklessExceptionCollector"/> as the pass goes, sites named from the sampled stacks at the end.
        /// </summary>
        public ExceptionFiles? ExceptionFiles
        {
            init
            {
                if (value is null) return;
                _exceptionFiles = value;
                _stackless = new StacklessExceptionCollector(value);
                _whereThrown = WhereThrown;
                _internStack = leafFirst => leafFirst.Length > 0 && stacks is RawEventPipeStacks raw ? raw.Intern(leafFirst) : -1;
                // The dispatch spans the main trace's exception events gave before they moved out (TraceAnalyzer.RuntimeWork).
                _dispatch = (qpc, threadId, start) =>
                {
                    var ms = Timeline.Clock.QpcToRelativeMs(qpc);
                    var work = Stage<RuntimeWorkStage>().Work;
                    if (start) work.Open(threadId, Samples.RuntimeWorkKind.ExceptionDispatch, ms);
                    else work.Close(threadId, Samples.RuntimeWorkKind.ExceptionDispatch, ms);
                };
                analysis.WarningList.AddRange(value.Warnings);
            }
        }

        /// <summary>The run and thread an event of this thread is charged to now: the open run's own threads only (no stack to say more).</summary>
        private (RunDraft?, ThreadDraft?) WhereThrown(int threadId)
        {
            var run = _windows.ChargeableFor(threadId) is { } r && (r.WorkerThreadId == 0 || r.IsRunThread(threadId)) ? r : null;
            return (run, ThreadOf(threadId));
        }

        /// <summary>The pass is over: the last throws are charged, and all of them counted by site once stacks are named.</summary>
        private void CountStacklessExceptions()
        {
            StackFileBefore(_lastQpc + 1);
            if (_stackless is not { } stackless) return;
            stackless.Before(long.MaxValue, _whereThrown!, _internStack!, _dispatch);
            WhenNamed(() => stackless.CountInto(Stage<ExceptionStage>().Collector, (type, stack) => stack < 0
                ? new ExceptionSite(type, CodeSite.UnknownFrame)
                : new ExceptionSite(type, Named ? ExceptionCollector.ThrowerOf(stacks.Frames(stack)) : CodeSite.UnknownFrame, stacks.Tag(stack)), analysis.Runs));
            WhenNamed(() => analysis.WarningList.Add(StacklessWarning(stackless)));
            if (Marks is not null) WhenNamed(MarkStacklessThrows);
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
                sampled[(s.Qpc, s.ThreadId)] = (s.Type, stack >= 0 && Named ? CodeSite.At(ExceptionCollector.ThrowerOf(stacks.Frames(stack))).Name : StackFrame.Unresolved);
            }
            void Mark(long qpc, int threadId, string type, string site)
            {
                if (qpc <= _lastQpc) Marks!.Thrown(new ThrowMark(Timeline.Clock.QpcToRelativeMs(qpc), threadId, type, site));
            }
            foreach (var t in files.Throws)
                Mark(t.Qpc, t.ThreadId, t.Type, sampled.Remove((t.Qpc, t.ThreadId), out var s) ? s.Site : StackFrame.Unresolved);
            foreach (var ((qpc, threadId), (type, site)) in sampled) Mark(qpc, threadId, type, site);
        }

        /// <summary>
        /// Once warm-ups are known: measured runs that threw while every throw still had an event (before the rate limit, or in a stack window):
        /// their times hold the events' cost, which the tracing-cost blocks (steady state) do not show.
        /// </summary>
        private void WarnRunsWithThrowEvents()
        {
            if (_stackless is not { } stackless) return;
            var runs = stackless.RunsWithThrowEvents([.. analysis.Runs.Where(r => r.IsMeasured)]);
            if (runs.Count == 0) return;
            var cases = runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects))
                .Select(g => $"{g.Key.Serializer} {g.Key.Operation} N={g.Key.Objects:N0} run{(g.Count() == 1 ? "" : "s")} {string.Join(", ", g.Select(r => r.Key.Run))}");
            analysis.WarningList.Add($"exceptions: {runs.Count} measured run{(runs.Count == 1 ? "" : "s")} threw while each throw still had an event (before the rate limit stopped that session, or in a stack window): "
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

        private StackFile? _stackFile;
        private int _nextLockWait;
        /// <summary>The main trace's latest clock value: the stacks file's waits after it (a cut or interrupted recording) are not charged.</summary>
        private long _lastQpc;

        /// <summary>
        /// The stack keywords' file beside a trace recorded without stacks (null: none, as in older recordings): its
        /// lock waits go through the pass as the trace's own did, at their place on the clock (<see cref="StackFileBefore"/>).
        /// </summary>
        public StackFile? StackFile
        {
            init
            {
                if (value is null) return;
                _stackFile = value;
                analysis.WarningList.AddRange(value.Warnings);
                if (stacks is not RawEventPipeStacks && value.LockWaits.Any(w => w.Start))
                    analysis.WarningList.Add($"lock waits: who wanted each lock is unnamed (?) in this analysis: through TraceLog, {Common.TraceFolderLayout.StacksTrace}'s stacks cannot be named");
            }
        }

        /// <summary>Every lock wait of the stacks file before <paramref name="qpc"/> (at the pass's end: up to the main trace's last event).</summary>
        private void StackFileBefore(long qpc)
        {
            if (_stackFile is not { } file) return;
            var waits = file.LockWaits;
            while (_nextLockWait < waits.Count && waits[_nextLockWait].Qpc < qpc)
            {
                var w = waits[_nextLockWait++];
                var ms = Timeline.Clock.QpcToRelativeMs(w.Qpc);
                var contention = Stage<ContentionStage>();
                if (w.Start) contention.Start(w.ThreadId, ms, w.LeafFirst.Length > 0 && stacks is RawEventPipeStacks raw ? raw.Intern(w.LeafFirst) : -1);
                else contention.Stop(w.ThreadId, ms, ThreadOf(w.ThreadId));
            }
        }

        /// <summary>Stack tags were given: the pass names code from stacks (without them it never did).</summary>
        private bool Named => stacks.Matcher is not null;
    }
}
