using System.Globalization;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>
/// A folding call tree per serializer, operation and N (root frames first, the hot path unfolded), plus links to the
/// speedscope files with the same samples for a real flame graph. Plain HTML details elements: no script needed.
/// </summary>
internal sealed class CallTreeSection(RunStacks stacks, string? htmlPath) : IReportSection
{
    /// <summary>Frames under this share of the total are left out, so a tree stays readable and the page small.</summary>
    private const double MinShare = 0.005;
    private const int MaxDepth = 48;
    /// <summary>A chain of frames that each hold (nearly) all of their parent's time is shown as one line.</summary>
    private const double ChainShare = 0.995;

    public string Id => "call-trees";
    public string Title => "Call trees and flame graphs";
    public string? Fold => "A folding call tree per serializer, operation and N, with its flame graph file";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        using (html.Block("p", ("class", "muted")))
        {
            html.Text(stacks.Profiles.All(p => p.Operation == RunStackCollector.WholeTraceOperation)
                ? "Sampled stacks over the whole trace, root first: all threads together, then the busiest threads; percentages are of all the sampled time of that tree. "
                : "Sampled stacks of the measured runs, root first; percentages are of all the sampled time of that serializer, operation and N. ");
            if (stacks.SpeedscopeDirectory is null)
                html.Text("For a flame graph, run again with ").Element("code", "--speedscope DIR").Text(": it writes one speedscope file per serializer, operation and N.");
            else
                html.Text("Flame graphs: open speedscope (the web app at speedscope.app, or offline with ").Element("code", "npx speedscope FILE")
                    .Text(") and drop the file linked under each tree on it; its Left Heavy view is the flame graph.");
        }
        if (stacks.Profiles.Count == 0)
        {
            html.Element("p", "No samples inside the measured runs (a trace without SampleProfiler?).", ("class", "muted"));
            return;
        }
        var harness = HarnessFrames(stacks.Profiles);
        foreach (var p in stacks.Profiles)
        {
            using (html.Block("details", ("class", "call-tree"), ("id", AnchorOf(p)), ("data-serializer", p.Serializer), ("data-operation", p.Operation), ("data-objects", Fmt.Int(p.Objects))))
            {
                using (html.Block("summary"))
                {
                    html.Element("strong", $"{p.Serializer} {p.Operation}{Fmt.NSuffix(p.Objects)}");
                    html.Text(string.Create(CultureInfo.InvariantCulture, $" · {Fmt.Ms(p.Tree.TotalMs)} ms sampled over {p.Runs} run(s)"));
                }
                html.Element("p", string.Create(CultureInfo.InvariantCulture,
                    $"{p.Runs} measured run(s), {p.Samples:N0} samples, {Fmt.Ms(p.Tree.TotalMs)} ms sampled (of which GC pauses {Fmt.Ms(p.GcMs)} ms)."), ("class", "caption"));
                if (p.SpeedscopePath is { } file)
                    using (html.Block("p"))
                        html.Text("Flame graph: ").Element("a", Path.GetFileName(file), ("href", Href(file)), ("class", "speedscope"), ("download", Path.GetFileName(file)));
                if (stacks.FirefoxPath is { } profile)
                    using (html.Block("p"))
                        html.Text("Time line: ").Element("a", Path.GetFileName(profile), ("href", Href(profile)), ("class", "firefox"), ("download", Path.GetFileName(profile)))
                            .Text($" in the Firefox Profiler; select a run marker named {p.Serializer} {p.Operation}{Fmt.NSuffix(p.Objects)} to see that run alone.");
                using (html.Block("div", ("class", "tree")))
                    foreach (var child in Sorted(p.Tree.Root, p.Tree.TotalMs))
                        WriteNode(html, child, p.Tree.TotalMs, 0, harness);
            }
        }
    }

    /// <summary>A file's link from the page: relative to it, so the folder can move.</summary>
    private string Href(string file)
    {
        var href = htmlPath is null ? file : Path.GetRelativePath(Path.GetDirectoryName(Path.GetFullPath(htmlPath))!, file).Replace('\\', '/');
        return Uri.EscapeDataString(href).Replace("%2F", "/", StringComparison.Ordinal);
    }

    /// <summary>"tree-YamlDotNet-serialize-N300": a link target per case, letters, digits and '-' only.</summary>
    public static string AnchorOf(RunProfile p) => AnchorOf(p.Serializer, p.Operation, p.Objects);

    public static string AnchorOf(string serializer, string operation, int objects) =>
        "tree-" + new string([.. $"{serializer}-{operation}{(objects == 0 ? "" : "-N" + objects.ToString(CultureInfo.InvariantCulture))}".Select(c => char.IsAsciiLetterOrDigit(c) ? c : '-')]);

    private static IEnumerable<CallTreeNode> Sorted(CallTreeNode node, double total) =>
        node.Children.Where(c => c.InclusiveMs >= total * MinShare).OrderByDescending(c => c.InclusiveMs);

    /// <summary>
    /// The root frames every profile starts with (Main, the benchmark's runner): the same in every tree, so they
    /// are folded into one line. Needs two profiles to tell harness from serializer.
    /// </summary>
    private static IReadOnlyList<string> HarnessFrames(IReadOnlyList<RunProfile> profiles)
    {
        if (profiles.Count < 2) return [];
        List<string> Chain(CallTreeNode root)
        {
            var chain = new List<string>();
            var node = root.Children.Where(c => c.Name != RunStackCollector.GcFrame).OrderByDescending(c => c.InclusiveMs).FirstOrDefault();
            while (node is not null)
            {
                chain.Add(node.Name);
                node = node.Children.Count == 1 ? node.Children.First() : null;
            }
            return chain;
        }
        var chains = profiles.Select(p => Chain(p.Tree.Root)).ToList();
        var common = chains[0].Count;
        foreach (var c in chains.Skip(1))
            common = Math.Min(common, c.Zip(chains[0]).TakeWhile(z => z.First == z.Second).Count());
        // Keep the last shared frame visible: it is where the profiles part (e.g. the runner's DeserializeRun).
        return chains[0].Take(Math.Max(0, common - 1)).ToList();
    }

    private static void WriteNode(HtmlWriter html, CallTreeNode node, double total, int depth, IReadOnlyList<string> harness)
    {
        // Frames that hold (nearly) all of their parent's time are listed in one node, one frame a line, so a
        // single hot path does not become a staircase; the harness frames every tree shares are folded to one line.
        var chain = new List<CallTreeNode> { node };
        while (chain[^1].Children.Count == 1 && chain[^1].Children.First().InclusiveMs >= chain[^1].InclusiveMs * ChainShare)
            chain.Add(chain[^1].Children.First());
        var folded = depth == 0 ? chain.Zip(harness).TakeWhile(z => z.First.Name == z.Second).Count() : 0;
        var last = chain[^1];
        var title = string.Join("\n", chain.Select(c => c.Name)) + $"\nself {Fmt.Ms(last.ExclusiveMs)} ms";
        var children = depth < MaxDepth ? Sorted(last, total).ToList() : [];
        if (children.Count == 0)
        {
            using (html.Block("div", ("class", "leaf"), ("title", title))) Line(html, node, chain, folded, total);
            return;
        }
        var open = node.InclusiveMs >= total * 0.2 && depth < 16;
        using (html.Block("details", ("open", open ? "open" : null)))
        {
            using (html.Block("summary", ("title", title))) Line(html, node, chain, folded, total);
            foreach (var child in children) WriteNode(html, child, total, depth + 1, harness);
        }
    }

    private static void Line(HtmlWriter html, CallTreeNode node, List<CallTreeNode> chain, int folded, double total)
    {
        html.Element("span", Fmt.Pct(total > 0 ? node.InclusiveMs / total : 0), ("class", "pct"));
        html.Element("span", Fmt.Ms(node.InclusiveMs) + " ms", ("class", "ms"));
        var shown = chain.Skip(folded).ToList();
        if (folded > 0)
            html.Element("span", $"[{folded} frames of the benchmark harness, the same in every tree]", ("class", "muted"));
        for (var i = 0; i < shown.Count; i++)
        {
            var cls = shown[i].Name == RunStackCollector.GcFrame ? "gc" : null;
            if (UnnamedFrames.IsChain(shown[i].Name)) cls = "unnamed";
            if (i == 0 && folded == 0) html.Element("span", Label(shown[i]), ("class", cls));
            else html.Element("span", "→ " + Label(shown[i]), ("class", "chain " + (cls ?? "")));
        }
    }

    /// <summary>A method's short name; a chain of unnamed frames as one line that says how many frames it holds.</summary>
    private static string Label(CallTreeNode node)
    {
        if (!UnnamedFrames.IsChain(node.Name)) return Short(node.Name);
        var frames = node.MinFrames == node.MaxFrames ? Fmt.Int(node.MaxFrames) : $"{Fmt.Int(node.MinFrames)}-{Fmt.Int(node.MaxFrames)}";
        return $"{node.Name}: {frames} unnamed frame{(node.MaxFrames == 1 ? "" : "s")}";
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
