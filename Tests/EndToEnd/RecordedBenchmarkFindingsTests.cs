using EtwSerializerProfiler.Analyzer.Findings;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>Reflection fallback: the Reflection baseline serializer in the shared recording (40,000 books, 256-byte payloads).</summary>
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class RecordedBenchmarkFindingsTests(RecordedBenchmark recorded)
{
    [Fact]
    public void The_reflection_baseline_raises_the_reflection_finding_Google_Protobuf_does_not()
    {
        var findings = recorded.Analysis.Findings;
        var deserialize = Assert.Single(findings, f => f.Kind == FindingKinds.Reflection && f.Serializer == "Reflection" && f.Operation == "deserialize");
        Assert.True(deserialize.EvidenceValue("reflectionShare") + deserialize.EvidenceValue("activatorShare") >= FindingThresholds.Default.MinReflectionShare);
        Assert.True(deserialize.Frame!.StartsWith("Reflection", StringComparison.Ordinal) || deserialize.Frame.StartsWith("Activator", StringComparison.Ordinal), deserialize.Frame);
        Assert.All(deserialize.Runs, k => Assert.NotEqual(0, k.Run));
        Assert.DoesNotContain(findings, f => f.Kind == FindingKinds.Reflection && f.Serializer == "Google.Protobuf");
    }
}
