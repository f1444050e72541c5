namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// Tests that time the benchmark against a known answer run alone and last, after the background set-ups: on 2 cores
/// another recording or the native esp's build beside them widens their intervals past any answer (a CI run during the
/// native build: 3 of 4 intervals 23 to 44 points wide).
/// </summary>
[AfterSetUp]
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TimingCollection
{
    public const string Name = "timing";
}
