using System.Globalization;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Profiles;

/// <summary>Keyword names of the CLR runtime provider (ClrEtwAll.man), so profiles read as words, not masks.</summary>
public static class KeywordNames
{
    public const string ClrProvider = "Microsoft-Windows-DotNETRuntime";
    public static readonly Guid ClrProviderGuid = new("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    public const string RundownProvider = "Microsoft-Windows-DotNETRuntimeRundown";
    public const string SampleProfilerProvider = "Microsoft-DotNETCore-SampleProfiler";

    public static readonly IReadOnlyDictionary<string, long> Clr = new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase)
    {
        ["GC"] = 0x1,
        ["GCHandle"] = 0x2,
        ["Loader"] = 0x8,
        ["Jit"] = 0x10,
        ["NGen"] = 0x20,
        ["StartEnumeration"] = 0x40,
        ["EndEnumeration"] = 0x80,
        ["Security"] = 0x400,
        ["AppDomainResourceManagement"] = 0x800,
        ["JitTracing"] = 0x1000,
        ["Interop"] = 0x2000,
        ["Contention"] = 0x4000,
        ["Exception"] = 0x8000,
        ["Threading"] = 0x10000,
        ["JittedMethodILToNativeMap"] = 0x20000,
        ["OverrideAndSuppressNGenEvents"] = 0x40000,
        ["Type"] = 0x80000,
        ["GCHeapDump"] = 0x100000,
        ["GCSampledObjectAllocationHigh"] = 0x200000,
        ["GCHeapSurvivalAndMovement"] = 0x400000,
        ["GCHeapCollect"] = 0x800000,
        ["GCHeapAndTypeNames"] = 0x1000000,
        ["GCSampledObjectAllocationLow"] = 0x2000000,
        ["PerfTrack"] = 0x20000000,
        ["Stack"] = 0x40000000,
        ["ThreadTransfer"] = 0x80000000,
        ["Debugger"] = 0x100000000,
        ["Monitoring"] = 0x200000000,
        ["Codesymbols"] = 0x400000000,
        ["Eventsource"] = 0x800000000,
        ["Compilation"] = 0x1000000000,
        ["CompilationDiagnostic"] = 0x2000000000,
        ["MethodDiagnostic"] = 0x4000000000,
        ["TypeDiagnostic"] = 0x8000000000,
        ["JitInstrumentationData"] = 0x10000000000,
        ["Profiler"] = 0x20000000000,
        ["WaitHandle"] = 0x40000000000,
        ["AllocationSampling"] = 0x80000000000,
    };

    public static long Resolve(string provider, IEnumerable<string> keywords)
    {
        long mask = 0;
        foreach (var k in keywords)
        {
            if (k.StartsWith("0x", StringComparison.OrdinalIgnoreCase)
                && long.TryParse(k.AsSpan(2), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out var literal))
                mask |= literal;
            else if (provider.Equals(ClrProvider, StringComparison.OrdinalIgnoreCase) && Clr.TryGetValue(k, out var value))
                mask |= value;
            else
                throw new UsageException($"profile keyword '{k}' is not known for provider {provider} (use a name from docs/recorder.md or a 0x mask)");
        }
        return keywords.Any() ? mask : -1; // no keywords listed = everything the provider has at that level
    }
}
