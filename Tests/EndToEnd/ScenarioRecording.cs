using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>One real recording of the benchmark with a scenario's options, analyzed, with its findings.</summary>
public sealed class ScenarioRecording
{
    public required TraceFolder Folder { get; init; }
    public required TraceAnalysis Analysis { get; init; }
    public IReadOnlyList<Finding> Findings => Analysis.Findings;

    public static ScenarioRecording Record(string dir, params string[] benchmarkArgs)
    {
        var (exit, folder) = Recording.Record(Path.Combine(dir, "trace"), [.. benchmarkArgs, "--quiet"]);
        Assert.True(exit == 0, $"recording {string.Join(' ', benchmarkArgs)} exited {exit}: {string.Join("; ", Recording.Results(folder).Errors)}");
        using var input = TraceInput.Open(folder.Path);
        return new ScenarioRecording { Folder = folder, Analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input) };
    }

    public IReadOnlyList<Finding> Of(string kind, string serializer) => [.. Findings.Where(f => f.Kind == kind && f.Serializer == serializer)];

    public IReadOnlyList<RunAnalysis> Runs(string serializer) => [.. Analysis.Runs.Where(r => r.Key.Serializer == serializer)];

    /// <summary>Every finding as one line, for assertion messages.</summary>
    public string Describe() => Findings.Count == 0 ? "(no findings)" : string.Join("\n", Findings.Select(f => $"{f.Kind} {f.Serializer} {f.Operation} N={f.Objects}: {f.Message}"));
}
