namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// Tests that pack this repository's projects: scripts/pack-tool.sh builds the diagnoser's project while the
/// BenchmarkDotNet test packs its build, so they take turns (a clean-clone run read the diagnoser's bin folder empty).
/// </summary>
[CollectionDefinition(Name)]
[AfterSetUp(SetUp.PackedTool)]
public sealed class PackagingCollection
{
    public const string Name = "packs the repository's projects";
}
