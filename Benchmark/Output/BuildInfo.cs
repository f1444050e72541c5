using System.Diagnostics;
using System.Reflection;
using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Benchmark.Output;

/// <summary>Facts about this process that make numbers trustworthy or not (Debug builds, debuggers).</summary>
public static class BuildInfo
{
    public static string Configuration =>
        typeof(BuildInfo).Assembly.GetCustomAttribute<DebuggableAttribute>()?.IsJITOptimizerDisabled == true ? "Debug" : "Release";

    public static string Runtime => RuntimeInformation.FrameworkDescription;

    public static string OperatingSystem => $"{RuntimeInformation.OSDescription} {RuntimeInformation.OSArchitecture}";

    /// <summary>The GC's cap on gen0's budget in bytes (GCGen0MaxBudget), or null where the runtime does not say (.NET Framework).</summary>
    public static long? Gen0BudgetBytes()
    {
#if NET7_0_OR_GREATER
        return GC.GetConfigurationVariables().TryGetValue("GCGen0MaxBudget", out var v) && v is IConvertible c ? c.ToInt64(null) : null;
#else
        return null;
#endif
    }

    /// <summary>Loud warnings for conditions that invalidate measurements; empty when all is well.</summary>
    public static IEnumerable<string> Warnings()
    {
        if (Configuration == "Debug") yield return "WARNING: Debug build: the JIT optimizer is off, times are not representative. Use -c Release.";
        if (Debugger.IsAttached) yield return "WARNING: a debugger is attached: times are not representative.";
    }
}
