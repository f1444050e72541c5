namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// Stacks of return addresses, interned as a tree from the root (as TraceLog's CallStackIndex is): a stack is the id
/// of its leaf node, and stacks that share their outer frames share those nodes, so a million samples of one loop
/// cost one node each for their differing leaves. Ids are dense from 0; -1 is "no stack".
/// </summary>
internal sealed class AddressStacks
{
    private readonly Dictionary<(int Caller, ulong Address), int> _ids = [];
    private readonly List<int> _callers = [];
    private readonly List<ulong> _addresses = [];

    public int Count => _callers.Count;

    /// <summary>The id of a stack given leaf first; -1 for an empty one.</summary>
    public int Intern(ReadOnlySpan<ulong> leafFirst)
    {
        var id = -1;
        for (var i = leafFirst.Length - 1; i >= 0; i--)
        {
            var key = (id, leafFirst[i]);
            if (!_ids.TryGetValue(key, out var next))
            {
                next = _callers.Count;
                _callers.Add(id);
                _addresses.Add(leafFirst[i]);
                _ids[key] = next;
            }
            id = next;
        }
        return id;
    }

    /// <summary>The stack without its leaf: the caller's stack, or -1.</summary>
    public int Caller(int id) => _callers[id];

    /// <summary>The leaf's return address.</summary>
    public ulong Address(int id) => _addresses[id];
}
