using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>First-chance exceptions (ExceptionStart) by type and throwing frame, charged to the run and the thread.</summary>
internal sealed class ExceptionCollector
{
    public bool Seen { get; private set; }

    public void Thrown(RunDraft? run, ThreadDraft? thread, ExceptionSite site, int count = 1)
    {
        Seen = true;
        run?.Counters.CountException(site, count);
        thread?.Counters.CountException(site, count);
    }

    /// <summary>
    /// The top resolved frame that is not the runtime's own throw machinery names the thrower (.NET 9+ dispatches
    /// exceptions in managed code, System.Runtime.EH, whose frames top every stack).
    /// </summary>
    public static StackFrame ThrowerOf(IEnumerable<StackFrame> framesLeafFirst)
    {
        foreach (var f in framesLeafFirst)
            if (f.Method != StackFrame.Unresolved && !Samples.ThrowCallSites.IsThrowMachinery(f.Method))
                return f;
        return CodeSite.UnknownFrame;
    }
}
