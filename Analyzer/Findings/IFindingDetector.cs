using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>
/// One kind of diagnosis over an analyzed trace, like a BenchmarkDotNet diagnoser: small, independent, and given
/// the same context as every other detector. Adding a diagnosis is one class plus one line in <see cref="FindingEngine"/>.
/// </summary>
internal interface IFindingDetector
{
    /// <summary>The <see cref="FindingKinds"/> value(s) this detector produces, for docs and listings.</summary>
    string Kind { get; }

    IEnumerable<Finding> Detect(FindingContext context);
}
