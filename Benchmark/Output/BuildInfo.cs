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

    /// <summary>Loud warnings for conditions that invalidate measurements; empty when all is well.</summary>
    public static IEnumerable<string> Warnings()
    {
        if (Configuration == "Debug") yield return "WARNING: Debug build: the JIT optimizer is off, times are not representative. Use -c Release.";
        if (Debugger.IsAttached) yield return "WARNING: a debugger is attached: times are not representative.";
    }
}
