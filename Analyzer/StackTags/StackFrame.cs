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
    public string Display
    {
        get
        {
            var module = System.IO.Path.GetFileNameWithoutExtension(Module);
            var paren = Method.IndexOf('(', StringComparison.Ordinal);
            return module + "!" + (paren > 0 ? Method[..paren] : Method);
        }
    }

    /// <summary>
    /// A GC-poll helper: EventPipe's sampler stops threads at safe points, so such a leaf says where the thread was
    /// stopped, not where it spent its time.
    /// </summary>
    public bool IsGcPoll => Method.Contains("PollGC", StringComparison.Ordinal);
}
