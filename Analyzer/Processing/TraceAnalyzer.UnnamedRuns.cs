using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>Runs found from the marker's waits alone: the samples charged to each vote for its serializer (StackTagRunNames).</summary>
    private sealed partial class PassState
    {
        private readonly Dictionary<RunAnalysis, Dictionary<string, double>> _nameVotes = new(ReferenceEqualityComparer.Instance);
        private readonly Dictionary<CallStackIndex, string?> _serializerByStack = [];

        private void VoteForName(RunAnalysis run, CallStackIndex stack, double weight)
        {
            if (stacks is null || stack == CallStackIndex.Invalid || run.Key.Serializer != StackTagRunNames.Unnamed) return;
            if (!_serializerByStack.TryGetValue(stack, out var serializer))
                _serializerByStack[stack] = serializer = StackTagRunNames.SerializerOf(stacks.Frames(stack), stacks.Matcher);
            if (serializer is null) return;
            if (!_nameVotes.TryGetValue(run, out var votes)) _nameVotes[run] = votes = new(StringComparer.Ordinal);
            votes[serializer] = votes.GetValueOrDefault(serializer) + weight;
        }

        /// <summary>Names the unnamed runs and marks their warm-ups, before MarkWarmups groups them.</summary>
        private void NameUnnamedRuns()
        {
            var unnamed = analysis.Runs.Where(r => r.Key.Serializer == StackTagRunNames.Unnamed).OrderBy(r => r.StartMs).ToList();
            if (unnamed.Count == 0) return;
            var names = StackTagRunNames.Apply(unnamed, _nameVotes);
            analysis.Trace.InferredNames = names;
            if (stacks is null) analysis.Warnings.Add("runs found from the marker's waits cannot be named: no stack tags");
            else if (names.Unnamed > 0) analysis.Warnings.Add($"{names.Unnamed} run(s) found from the marker's waits had no samples in serializer code to name them, nor a named run of their operation: left as {StackTagRunNames.Unnamed}");
            // --serializers applies to the inferred names too.
            analysis.Runs.RemoveAll(r => !options.Includes(r.Key.Serializer));
        }
    }
}
