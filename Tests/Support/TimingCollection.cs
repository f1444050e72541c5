namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// Tests that time the benchmark against a known answer run alone, after the parallel classes: on 2 cores another
/// class's recording beside them widens their intervals past any answer (docs/architecture.md#tests-tests).
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TimingCollection
{
    public const string Name = "timing";
}
