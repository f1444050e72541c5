
namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One diagnosis with its evidence: the numbers that crossed a threshold, the frame that explains them and the runs
/// they were measured in, so a reader can go from the sentence back to the trace.
/// </summary>
public sealed record Finding
{
    /// <summary>One of <c>Findings.FindingKinds</c>.</summary>
    public required string Kind { get; init; }
    public required FindingSeverity Severity { get; init; }
    /// <summary>Null for findings about the whole process (Debug build, debugger).</summary>
    public string? Serializer { get; init; }
    public string? Operation { get; init; }
    /// <summary>Null when the finding spans several object counts (super-linear scaling) or none.</summary>
    public int? Objects { get; init; }
    /// <summary>The measured runs the evidence comes from.</summary>
    public IReadOnlyList<RunKey> Runs { get; init; } = [];
    public required string Message { get; init; }
    /// <summary>Named numbers, in the order they are best read.</summary>
    public IReadOnlyList<KeyValuePair<string, double>> Evidence { get; init; } = [];
    /// <summary>The frame that explains it: top throwing frame, lock taker, top reflection tag; null when none applies.</summary>
    public string? Frame { get; init; }

    public double? EvidenceValue(string name) => Evidence.Where(e => e.Key == name).Select(e => (double?)e.Value).FirstOrDefault();
}
