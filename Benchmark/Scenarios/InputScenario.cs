using EtwSerializerProfiler.Benchmark.Serializers;

namespace EtwSerializerProfiler.Benchmark.Scenarios;

/// <summary>
/// A reproducer for one known slow path that lives in the input, not in the serializer's configuration: the
/// serialized bytes are rewritten once, outside the measured window, into an equivalent document that real-world
/// producers emit (e.g. base64 wrapped at 73 characters). Deserialize runs then read the rewritten bytes, and the
/// round-trip check proves the rewrite kept the data.
/// </summary>
public abstract class InputScenario
{
    /// <summary>What users type after --scenario.</summary>
    public abstract string Name { get; }

    /// <summary>One line for --help and docs/findings.md.</summary>
    public abstract string Description { get; }

    /// <summary>Non-null when the options cannot produce input for this scenario (checked once, at parse time).</summary>
    public virtual string? InvalidOptionsReason(BenchmarkOptions options) => null;

    /// <summary>Non-null when this serializer's output has nothing the scenario could rewrite.</summary>
    public abstract string? UnsupportedReason(Serializer serializer);

    /// <summary>The rewritten input; throws when nothing was rewritten, so a run never measures the clean path by accident.</summary>
    public abstract byte[] Rewrite(byte[] serialized);
}
