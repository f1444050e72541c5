using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.CallTrees;

/// <summary>
/// A chain of frames without a name (the stripped native runtime: `libcoreclr!?`, one frame per return address) is
/// one node of a call tree, named as the hot-method tables name that code: its module, then what the trace's events
/// say the runtime was doing ("native", "JIT", "type loading", "GC", "stub"; <see cref="HotMethodTable.Said"/>, carried by each charged sample).
/// The node keeps how many frames it stands for, so the tree can say "7 unnamed frames" in one line.
/// </summary>
internal static class UnnamedFrames
{
    /// <summary>A frame nobody could name: its method is "?" or empty.</summary>
    public static bool IsUnnamed(StackFrame f) => f.Method is StackFrame.Unresolved or "";

    /// <summary>A call tree node made by <see cref="Name"/>.</summary>
    public static bool IsChain(string nodeName) => nodeName.Contains(ChainMark, StringComparison.Ordinal);

    private const string ChainMark = "!? (";

    /// <summary>"libcoreclr!? (native)": the modules of the chain, root first, and the work said for its leaf ("native" for a chain above managed code).</summary>
    public static string Name(IEnumerable<string> modulesRootFirst, string? work) =>
        string.Join("+", modulesRootFirst.Distinct()) + ChainMark + (work ?? Native) + ")";

    /// <summary>A chain with nothing said about it: code the runtime ran for a caller (<see cref="HotMethodTable.Said"/> of no work).</summary>
    public static string Native => HotMethodTable.Said(NativeWork.None);
}
