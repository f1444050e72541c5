using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Analyzer.Collections;

/// <summary>
/// Stacks interned as a tree from the root (as TraceLog's CallStackIndex is): a stack is the id of its leaf node, and
/// stacks that share their outer frames share those nodes. Frames are what a source's stacks hold: return addresses
/// of EventPipe's events (Stacks/RawEventPipeStacks), frame ids of the kernel session's (Kernel/KernelTrace).
/// Kernel samples' stacks are nearly all distinct by address (the leaf's instruction pointer differs), so a copy of
/// every frame per distinct stack made them the largest thing a long trace kept; here a stack new only near its leaf
/// costs a node or two. A stack seen before is found whole in one lookup (each node holds the hash of the stack it
/// ends), not one per frame. Ids are dense from 0; -1 is no stack.
/// </summary>
internal sealed class StackTree<T> where T : unmanaged, IEquatable<T>
{
    private const int EmptyHash = 0;
    private readonly List<T> _frames = [];
    private readonly List<int> _callers = [];
    private readonly List<int> _hashes = [];
    private readonly HashSet<int> _nodes;
    private readonly HashSet<int>.AlternateLookup<Suffix> _bySuffix;

    public StackTree()
    {
        _nodes = new HashSet<int>(new NodeComparer(this));
        _bySuffix = _nodes.GetAlternateLookup<Suffix>();
    }

    /// <summary>Nodes: distinct stacks and the outer parts they share.</summary>
    public int Count => _frames.Count;

    /// <summary>The stack's innermost frame.</summary>
    public T Leaf(int stack) => _frames[stack];

    /// <summary>The stack without its leaf, or -1.</summary>
    public int Caller(int stack) => _callers[stack];

    /// <summary>The id of a stack given leaf first; -1 for an empty one.</summary>
    public int Intern(ReadOnlySpan<T> leafFirst)
    {
        var n = leafFirst.Length;
        if (n == 0) return -1;
        // Each suffix's hash, rootward first, so a node's hash covers the whole stack it ends.
        Span<int> hashes = n <= 512 ? stackalloc int[n] : new int[n];
        var hash = EmptyHash;
        for (var i = n - 1; i >= 0; i--) hashes[i] = hash = Mix(leafFirst[i], hash);
        // The longest suffix already known: the whole stack nearly always, else it without its leaf, and so on.
        var known = n;
        var id = -1;
        for (var i = 0; i < n; i++)
        {
            if (!_bySuffix.TryGetValue(new Suffix(leafFirst[i..], hashes[i]), out var found)) continue;
            (known, id) = (i, found);
            break;
        }
        for (var i = known - 1; i >= 0; i--) id = Add(leafFirst[i], id, hashes[i]);
        return id;
    }

    /// <summary>No stacks again, the storage kept (a kernel chunk read into again).</summary>
    public void Clear()
    {
        _frames.Clear();
        _callers.Clear();
        _hashes.Clear();
        _nodes.Clear();
    }

    /// <summary>The stack's frames, leaf first, into <paramref name="leafFirst"/> (cleared first).</summary>
    public void CopyTo(int stack, List<T> leafFirst)
    {
        leafFirst.Clear();
        for (var node = stack; node >= 0; node = _callers[node]) leafFirst.Add(_frames[node]);
    }

    public T[] ToArray(int stack)
    {
        var frames = new List<T>();
        CopyTo(stack, frames);
        return [.. frames];
    }

    private int Add(T frame, int caller, int hash)
    {
        var node = _frames.Count;
        _frames.Add(frame);
        _callers.Add(caller);
        _hashes.Add(hash);
        _nodes.Add(node);
        return node;
    }

    private static int Mix(T frame, int callerHash) => HashCode.Combine(frame, callerHash);

    /// <summary>Frames leaf first with the hash of the stack they make: what a node is looked up by.</summary>
    private readonly ref struct Suffix(ReadOnlySpan<T> frames, int hash)
    {
        public ReadOnlySpan<T> Frames { get; } = frames;
        public int Hash { get; } = hash;
    }

    private sealed class NodeComparer(StackTree<T> stacks) : IEqualityComparer<int>, IAlternateEqualityComparer<Suffix, int>
    {
        public bool Equals(int x, int y) =>
            x == y || (stacks._frames[x].Equals(stacks._frames[y]) && stacks._callers[x] == stacks._callers[y]);

        public int GetHashCode(int node) => stacks._hashes[node];

        public int GetHashCode(Suffix suffix) => suffix.Hash;

        /// <summary>The node ends exactly these frames: its chain to the root matches them one by one.</summary>
        public bool Equals(Suffix suffix, int node)
        {
            var frames = CollectionsMarshal.AsSpan(stacks._frames);
            var callers = CollectionsMarshal.AsSpan(stacks._callers);
            foreach (var frame in suffix.Frames)
            {
                if (node < 0 || !frames[node].Equals(frame)) return false;
                node = callers[node];
            }
            return node < 0;
        }

        public int Create(Suffix suffix) => throw new NotSupportedException("nodes are added one by one (StackTree.Add)");
    }
}
