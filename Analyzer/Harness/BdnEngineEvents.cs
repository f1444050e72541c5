using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>
/// BenchmarkDotNet's engine EventSource (BenchmarkDotNet/Engines/EngineEventSource.cs, the same ids and payloads from
/// 0.11 through 0.15): the contract this analyzer reads, spelled out here because the analyzer does not reference
/// BenchmarkDotNet. The engine emits BenchmarkStart/Stop around one benchmark case (payload: its full name, as
/// FullNameProvider.GetBenchmarkName writes it) and a Start/Stop pair around every iteration, one task per mode and
/// stage (payload: totalOperations, the workload calls in the iteration). The iteration events sit right next to
/// the engine's clock reads (Engine.RunIteration), with the GC it forces between iterations outside them. The
/// jitting iterations run before BenchmarkStart (EngineFactory), so they are named by the BenchmarkStart after them.
/// </summary>
internal static class BdnEngineEvents
{
    public const string ProviderName = "BenchmarkDotNet.EngineEventSource";

    /// <summary>EventSource derives the provider GUID from the name; the trace's events carry it.</summary>
    public static readonly Guid ProviderGuid = EventSourceGuid.FromName(ProviderName);

    public const int BenchmarkStartId = 1;
    public const int BenchmarkStopId = 2;

    /// <summary>The measured iterations (IterationMode.Workload, IterationStage.Actual): the ones BenchmarkDotNet's statistics use.</summary>
    public const int WorkloadActualStartId = 15;

    /// <summary>The overhead iterations whose median BenchmarkDotNet subtracts from every measured one (IterationMode.Overhead, IterationStage.Actual).</summary>
    public const int OverheadActualStartId = 11;

    public const string MeasuredStageLabel = "workload actual";

    /// <summary>A measured iteration BenchmarkDotNet's default outlier rule drops (shown, not averaged).</summary>
    public const string OutlierStageLabel = "workload actual (upper outlier)";

    public static class Fields
    {
        public const string BenchmarkName = "benchmarkName";
        public const string TotalOperations = "totalOperations";
    }

    /// <summary>One iteration kind: its Start event id (Stop is the next id), the label runs carry, whether it runs the workload.</summary>
    public sealed record Stage(int StartId, string Label, bool Workload)
    {
        public int StopId => StartId + 1;
        public bool Measured => StartId == WorkloadActualStartId;
    }

    public static readonly IReadOnlyList<Stage> Stages =
    [
        new(3, "overhead jitting", false),
        new(5, "workload jitting", true),
        new(7, "workload pilot", true),
        new(9, "overhead warm-up", false),
        new(OverheadActualStartId, "overhead actual", false),
        new(13, "workload warm-up", true),
        new(WorkloadActualStartId, MeasuredStageLabel, true),
    ];

    public static Stage? StartStage(int id) => Stages.FirstOrDefault(s => s.StartId == id);

    public static bool IsIterationStop(int id) => Stages.Any(s => s.StopId == id);
}
