namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>The kind names of findings: stable strings, because they are the JSON contract (findings[].kind).</summary>
internal static class FindingKinds
{
    public const string Exceptions = "exceptions";
    public const string Contention = "contention";
    public const string FirstCall = "first-call";
    public const string Reflection = "reflection";
    public const string GcBound = "gc-bound";
    public const string SuperLinear = "super-linear";
    public const string DebugBuild = "debug-build";
    public const string DebuggerAttached = "debugger-attached";
    public const string TracingCost = "tracing-cost";
    public const string NotSteadyState = "not-steady-state";
    /// <summary>The trace's CPU column disagrees with the benchmark's thread CPU clock: every CPU figure is off by that much.</summary>
    public const string CpuBias = "cpu-bias";
    /// <summary>Info: the benchmark's warm-up ended not steady (process-wide JIT), yet the case's own code ran optimized.</summary>
    public const string SteadyByTrace = "steady-by-trace";
    /// <summary>Info: a case's runs spent much of the process's CPU outside its workers (kernel session), named by thread role.</summary>
    public const string OtherThreads = "other-threads";
}
