using System.Globalization;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Report.Sections;

/// <summary>
/// A folding call tree per serializer and operation (root frames first, the hot path unfolded), plus links to the
/// speedscope files with the same samples for a real flame graph. Plain HTML details elements: no script needed.
/// </summary>
public sealed class CallTreeSection(RunStacks stacks, string? htmlPath) : IReportSection
{
    /// <summary>Frames under this share of the total are left out, so a tree stays readable and the page small.</summary>
    private const double MinShare = 0.005;
    private const int MaxDepth = 48;
    /// <summary>A chain of frames that each hold (nearly) all of their parent's time is shown as one line.</summary>
    private const double ChainShare = 0.995;

    public string Id => "call-trees";
    public string Title => "Call trees and flame graphs";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        using (html.Block("p", ("class", "muted")))
        {
            html.Text("Sampled managed stacks of the measured runs, root first; percentages are of all the sampled time of that serializer and operation. ");
            if (stacks.SpeedscopeDirectory is null)
                html.Text("For a flame graph, run again with ").Element("code", "--speedscope DIR").Text(": it writes one speedscope file per serializer and operation.");
            else
                html.Text("Flame graphs: open speedscope (the web app at speedscope.app, or offline with ").Element("code", "npx speedscope FILE")
                    .Text(") and drop the file linked under each tree on it; its Left Heavy view is the flame graph.");
        }
        if (stacks.Profiles.Count == 0)
        {
            html.Element("p", "No samples inside the measured runs (a trace without SampleProfiler?).", ("class", "muted"));
            return;
        }
        foreach (var p in stacks.Profiles)
        {
            using (html.Block("div", ("class", "call-tree"), ("data-serializer", p.Serializer), ("data-operation", p.Operation)))
            {
                html.Element("h3", $"{p.Serializer} {p.Operation}");
                html.Element("p", string.Create(CultureInfo.InvariantCulture,
                    $"{p.Runs} measured run(s), {p.Samples:N0} samples, {Fmt.Ms(p.Tree.TotalMs)} ms sampled (of which GC pauses {Fmt.Ms(p.GcMs)} ms)."), ("class", "caption"));
                if (p.SpeedscopePath is { } file)
                {
                    var href = htmlPath is null ? file : Path.GetRelativePath(Path.GetDirectoryName(Path.GetFullPath(htmlPath))!, file).Replace('\\', '/');
                    using (html.Block("p"))
                        html.Text("Flame graph: ").Element("a", Path.GetFileName(file), ("href", Uri.EscapeDataString(href).Replace("%2F", "/", StringComparison.Ordinal)), ("class", "speedscope"), ("download", Path.GetFileName(file)));
                }
                using (html.Block("div", ("class", "tree")))
                    foreach (var child in Sorted(p.Tree.Root, p.Tree.TotalMs))
                        WriteNode(html, child, p.Tree.TotalMs, 0);
            }
        }
    }

    private static IEnumerable<CallTreeNode> Sorted(CallTreeNode node, double total) =>
        node.Children.Where(c => c.InclusiveMs >= total * MinShare).OrderByDescending(c => c.InclusiveMs);

    private static void WriteNode(HtmlWriter html, CallTreeNode node, double total, int depth)
    {
        var chain = new List<CallTreeNode> { node };
        while (chain[^1].Children.Count == 1 && chain[^1].Children.First().InclusiveMs >= chain[^1].InclusiveMs * ChainShare)
            chain.Add(chain[^1].Children.First());
        var last = chain[^1];
        var label = chain.Count switch
        {
            1 => Short(node.Name),
            2 => $"{Short(node.Name)} → {Short(last.Name)}",
            _ => $"{Short(node.Name)} → … {chain.Count - 2} frames … → {Short(last.Name)}",
        };
        var title = string.Join("\n", chain.Select(c => c.Name)) + $"\nself {Fmt.Ms(last.ExclusiveMs)} ms";
        var children = depth < MaxDepth ? Sorted(last, total).ToList() : [];
        if (children.Count == 0)
        {
            using (html.Block("div", ("class", "leaf"), ("title", title))) Line(html, node, label, total);
            return;
        }
        var open = node.InclusiveMs >= total * 0.2 && depth < 16;
        using (html.Block("details", ("open", open ? "open" : null)))
        {
            using (html.Block("summary", ("title", title))) Line(html, node, label, total);
            foreach (var child in children) WriteNode(html, child, total, depth + 1);
        }
    }

    private static void Line(HtmlWriter html, CallTreeNode node, string label, double total)
    {
        html.Element("span", Fmt.Pct(total > 0 ? node.InclusiveMs / total : 0), ("class", "pct"));
        html.Element("span", Fmt.Ms(node.InclusiveMs) + " ms", ("class", "ms"));
        html.Element("span", label, ("class", node.Name == RunStackCollector.GcFrame ? "gc" : null));
    }

    /// <summary>"Namespace.Type.Method" of "Module!Namespace.Type.Method(args)": the full name is in the tooltip.</summary>
    private static string Short(string frame)
    {
        var paren = frame.IndexOf('(', StringComparison.Ordinal);
        var name = paren > 0 ? frame[..paren] : frame;
        var bang = name.IndexOf('!', StringComparison.Ordinal);
        return bang > 0 && bang < name.Length - 1 ? name[(bang + 1)..] : name;
    }
}
