namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>
/// One frame as TraceEvent names it: <paramref name="Module"/> may be a full path, a file name or a name without
/// extension; <paramref name="Method"/> may carry a signature, or be empty or "?" when unresolved.
/// <see cref="StackTagMatcher"/> normalizes both, so callers pass them through untouched.
/// </summary>
public readonly record struct StackFrame(string Module, string Method)
{
    /// <summary>The method name of a frame nobody could name (no rundown, stripped native code).</summary>
    public const string Unresolved = "?";

    /// <summary>"Module!Type.Method" without the signature: how methods are shown in --top and the call trees.</summary>
    public string Display => ModuleName + "!" + MethodName;

    /// <summary>The module as <see cref="Display"/> shows it: without its path and extension.</summary>
    public string ModuleName => System.IO.Path.GetFileNameWithoutExtension(Module);

    /// <summary>The method as <see cref="Display"/> shows it: without its signature.</summary>
    public string MethodName => Method.IndexOf('(', StringComparison.Ordinal) is var paren and > 0 ? Method[..paren] : Method;

    /// <summary>
    /// A GC-poll helper: EventPipe's sampler stops threads at safe points, so such a leaf says where the thread was
    /// stopped, not where it spent its time.
    /// </summary>
    public bool IsGcPoll => Method.Contains("PollGC", StringComparison.Ordinal);
}
