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
    /// <param name="frameCounts">How many frames each name stands for (a chain of unnamed frames is one name); null: one each.</param>
    internal void Add(IReadOnlyList<string> framesRootFirst, double ms, IReadOnlyList<int>? frameCounts = null)
    {
        var node = Root;
        node.InclusiveMs += ms;
        for (var i = 0; i < framesRootFirst.Count; i++)
        {
            node = node.Child(framesRootFirst[i]);
            node.InclusiveMs += ms;
            node.CountFrames(frameCounts?[i] ?? 1);
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
    /// <summary>The fewest and most frames this node stood for in a sample: 1 for a method, more for a chain of unnamed frames (<see cref="UnnamedFrames"/>).</summary>
    public int MinFrames { get; private set; } = int.MaxValue;
    public int MaxFrames { get; private set; }

    internal void CountFrames(int frames)
    {
        MinFrames = Math.Min(MinFrames, frames);
        MaxFrames = Math.Max(MaxFrames, frames);
    }

    internal CallTreeNode Child(string frame)
    {
        if (!_children.TryGetValue(frame, out var child)) _children[frame] = child = new CallTreeNode(frame);
        return child;
    }
}
