namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>
/// One frame as TraceEvent names it: <paramref name="Module"/> may be a full path, a file name or a name without
/// extension; <paramref name="Method"/> may carry a signature, or be empty or "?" when unresolved.
/// <see cref="StackTagMatcher"/> normalizes both, so callers pass them through untouched.
/// </summary>
public readonly record struct StackFrame(string Module, string Method);
