using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>Hand-made sites for unit tests, written as outputs show them ("Module!Type.Method").</summary>
internal static class Sites
{
    /// <summary>A frame as the trace names it (the module a file name, as TraceEvent's are).</summary>
    public static StackFrame Frame(string name)
    {
        var bang = name.IndexOf('!', StringComparison.Ordinal);
        return new StackFrame(name[..bang] + ".dll", name[(bang + 1)..]);
    }

    public static CodeSite At(string name, string? tag = null) => CodeSite.At(Frame(name), tag);
}
