using EtwSerializerProfiler.Analyzer.Model;
using Xunit;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.Analyzer.Architecture;

/// <summary>
/// The analyzer's folders are layers (docs/architecture.md): each namespace may use those below it, never one that uses
/// it back. Read from the compiled code, so a fully qualified name or a lambda cannot hide an edge.
/// </summary>
public sealed class AnalyzerLayeringTests(ITestOutputHelper output)
{
    private const string Root = "EtwSerializerProfiler.Analyzer";

    [Fact]
    public void NoNamespaceCycles()
    {
        var graph = new NamespaceGraph(typeof(TraceAnalysis).Assembly, Root);
        foreach (var (from, to) in graph.Edges.OrderBy(e => e.Key))
            output.WriteLine($"{from} -> {string.Join(", ", to.Keys.Order())}");
        var cycles = graph.Cycles();
        Assert.True(cycles.Count == 0, "namespace cycles:\n" + string.Join("\n", cycles.Select(c => string.Join(" <-> ", c) + "\n  " + string.Join("\n  ", graph.Explain(c)))));
    }
}
