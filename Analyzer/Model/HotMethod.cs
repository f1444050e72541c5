namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One method's row of a hot-method table ("Module!Type.Method"), over the measured runs of one serializer, operation
/// and N: its exclusive time (samples whose innermost frame it is) and inclusive time (samples it is anywhere on).
/// Exclusive times of different rows never share a sample, so they add up to at most the runs' CPU.
/// </summary>
public sealed record HotMethod(string Name, double ExclusiveMs, double InclusiveMs)
{
    /// <summary>
    /// Code without a name (the stripped runtime, `libcoreclr!?`): this row's exclusive time split by the managed method
    /// that called into it, largest first. A breakdown of <see cref="ExclusiveMs"/>, never a row beside it: the callers add
    /// up to at most the row (a sample with no managed caller is in the row, in no caller).
    /// </summary>
    public IReadOnlyList<HotMethodCaller> CalledFrom { get; init; } = [];
}

/// <summary>
/// Part of an unnamed row's exclusive time, by the managed method that called into the code: <paramref name="Work"/> is
/// what the trace's events say the runtime was doing ("native" when they say nothing; "JIT", "type loading", "GC", "stub").
/// </summary>
public sealed record HotMethodCaller(string Work, string Caller, double ExclusiveMs)
{
    /// <summary>"native, called from X.Y": how the row's children read in every format.</summary>
    public string Display => $"{Work}, called from {Caller}";
}
