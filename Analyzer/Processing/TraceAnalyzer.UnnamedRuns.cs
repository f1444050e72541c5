using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>Runs found from the marker's waits alone: the samples charged to each voted for its serializer (SampleCharger, StackTagRunNames).</summary>
    private sealed partial class PassState
    {
        /// <summary>Names the unnamed runs and marks their warm-ups, before MarkWarmups groups them.</summary>
        private void NameUnnamedRuns()
        {
            var unnamed = analysis.Runs.Where(r => r.Key.Serializer == StackTagRunNames.Unnamed).OrderBy(r => r.StartMs).ToList();
            if (unnamed.Count == 0) return;
            var names = StackTagRunNames.Apply(unnamed, _cpu?.NameVotes ?? new Dictionary<RunDraft, Dictionary<string, double>>());
            analysis.Trace = analysis.Trace with { InferredNames = names };
            if (!Named) analysis.WarningList.Add("runs found from the marker's waits cannot be named: no stack tags");
            else if (names.Unnamed > 0) analysis.WarningList.Add($"{names.Unnamed} run(s) found from the marker's waits had no samples in serializer code to name them, nor a named run of their operation: left as {StackTagRunNames.Unnamed}");
            // --serializers applies to the inferred names too.
            analysis.RunList.RemoveAll(r => !options.Includes(r.Key.Serializer));
        }
    }
}
