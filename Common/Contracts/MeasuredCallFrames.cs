namespace EtwSerializerProfiler.Common;

/// <summary>
/// The benchmark's measured calls as they appear in a resolved stack frame ("Type.Method("): the frames whose callee
/// is the serializer under measurement. The analyzer finds a run's serializer code below them (Stacks/MeasuredCalls,
/// MeasuredCallRepair, TraceAnalyzer); Benchmark/Runs must keep these method names (a test checks that it does).
/// </summary>
public static class MeasuredCallFrames
{
    public const string SerializeRun = "BenchmarkRunner.SerializeRun(";
    public const string DeserializeRun = "BenchmarkRunner.DeserializeRun(";
    /// <summary>--test firstcall: the first call of a serializer in a fresh process.</summary>
    public const string FirstCall = "FirstCallRunner.MeasureInProcess";

    public static readonly IReadOnlyList<string> All = [SerializeRun, DeserializeRun, FirstCall];
}
