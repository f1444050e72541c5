namespace EtwSerializerProfiler.Analyzer.CallTrees;

/// <summary>
/// Sampled time of one serializer and operation as a call tree, root frames first: what a flame graph shows,
/// in a form the HTML report can fold and unfold without any script.
/// </summary>
public sealed class CallTree
{
    public CallTreeNode Root { get; } = new("all samples");
    public double TotalMs => Root.InclusiveMs;

    /// <summary>Adds one sample's weight along its frames, root first (while RunStackCollector builds the tree).</summary>
    internal void Add(IReadOnlyList<string> framesRootFirst, double ms)
    {
        var node = Root;
        node.InclusiveMs += ms;
        foreach (var frame in framesRootFirst)
        {
            node = node.Child(frame);
            node.InclusiveMs += ms;
        }
        node.ExclusiveMs += ms;
    }
}

public sealed class CallTreeNode(string name)
{
    private readonly Dictionary<string, CallTreeNode> _children = new(StringComparer.Ordinal);

    public string Name { get; } = name;
    public double InclusiveMs { get; internal set; }
    public double ExclusiveMs { get; internal set; }
    public IReadOnlyCollection<CallTreeNode> Children => _children.Values;

    internal CallTreeNode Child(string frame)
    {
        if (!_children.TryGetValue(frame, out var child)) _children[frame] = child = new CallTreeNode(frame);
        return child;
    }
}
