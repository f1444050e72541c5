namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>Makes a stage for one pass (a stage keeps the state of its pass, the analyzer none).</summary>
internal delegate IPassStage PassStageFactory();

/// <summary>
/// The collectors the pass runs, in the order their missing families are said. A new collector is one
/// <see cref="IPassStage"/> class and its line here; a test registers its own (<see cref="TraceAnalyzer.Stages"/>).
/// </summary>
internal static class PassStages
{
    public static IReadOnlyList<PassStageFactory> Default { get; } =
    [
        () => new AllocationStage(),
        () => new ContentionStage(),
        () => new ExceptionStage(),
        () => new JitStage(),
    ];
}
