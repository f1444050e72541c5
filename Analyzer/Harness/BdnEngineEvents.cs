using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>
/// BenchmarkDotNet's engine EventSource (BenchmarkDotNet/Engines/EngineEventSource.cs, the same ids and payloads since 0.11.2 through 0.15):
/// the contract this analyzer reads, spelled out here because the analyzer does not reference BenchmarkDotNet.
/// The engine emits BenchmarkStart/Stop around one benchmark case (payload: its full name, as
/// FullNameProvider.GetBenchmarkName writes it) and a Start/Stop pair around every iteration, one task per
/// stage (payload: totalOperations, the workload calls in the iteration). The events sit right next to the engine's
/// clock reads (Engine.RunIteration), with the GC it forces between iterations outside them.
/// </summary>
public static class BdnEngineEvents
{
    public const string ProviderName = "BenchmarkDotNet.EngineEventSource";

    /// <summary>EventSource derives the provider GUID from the name; the trace's events carry it.</summary>
    public static readonly Guid ProviderGuid = EventSourceGuid.FromName(ProviderName);

    public const int BenchmarkStartId = 1;
    public const int BenchmarkStopId = 2;
    /// <summary>The measured iterations (IterationMode.Workload, IterationStage.Actual): the ones BenchmarkDotNet's statistics use.</summary>
    public const int WorkloadActualStartId = 15;
    public const int WorkloadActualStopId = 16;

    public static class Fields
    {
        public const string BenchmarkName = "benchmarkName";
        public const string TotalOperations = "totalOperations";
    }
}
