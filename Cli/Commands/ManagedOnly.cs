using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// Verbs that need the benchmark's serializer classes, found by reflection (Benchmark/Serializers/SerializerCatalog):
/// the native esp (Cli/NativeAot.targets), built for fast analysis, does not carry them, and says so with exit 2
/// instead of working from an empty serializer list.
/// </summary>
internal static class ManagedOnly
{
    /// <summary>The native esp: compiled ahead of time, no code generated at run time.</summary>
    public static bool IsNativeBuild => !RuntimeFeature.IsDynamicCodeSupported;

    public static void Require(string verb)
    {
        if (IsNativeBuild)
            throw new UsageException($"the native esp analyzes traces (analyze, diff, stats, heap, scripts) but does not carry the benchmark's serializers that '{verb}' needs: run it from the managed build (dotnet run -c Release --project Cli -- {verb} ...)");
    }
}
