using Microsoft.Diagnostics.Runtime;

namespace EtwSerializerProfiler.Analyzer.Heap;

/// <summary>
/// Walks an object graph in a dump from one root, each object once (shared references and cycles are counted
/// once, which is exactly what makes one shared title one string). Iterative, so deep graphs (long linked lists)
/// cannot overflow the stack.
/// </summary>
internal static class GraphWalker
{
    /// <summary>Longer strings are compared by this prefix plus their length; serializer graphs rarely hold such strings.</summary>
    public const int MaxStringChars = 1 << 20;

    public static GraphCensus Walk(ClrHeap heap, ClrObject root)
    {
        var census = new GraphCensus();
        if (root.IsNull) return census;
        var seen = new HashSet<ulong> { root.Address };
        var pending = new Stack<ulong>();
        pending.Push(root.Address);
        while (pending.Count > 0)
        {
            var address = pending.Pop();
            var obj = heap.GetObject(address);
            if (!obj.IsValid || obj.Type is null)
            {
                census.Unreadable++;
                continue;
            }
            if (heap.GetSegmentByAddress(address)?.Kind == GCSegmentKind.Frozen)
            {
                // String literals live in the frozen (non-GC) heap: shared by every graph, owned by none.
                census.FrozenObjects++;
                continue;
            }
            var type = obj.Type;
            census.Add(address, type.Name ?? "?", (long)obj.Size);
            if (type.IsString)
            {
                census.Strings.Add(new StringInstance(address, (long)obj.Size, obj.AsString(MaxStringChars) ?? ""));
                continue;
            }
            if (!type.ContainsPointers) continue;
            foreach (var child in obj.EnumerateReferences(carefully: true, considerDependantHandles: false))
            {
                if (!child.IsNull && seen.Add(child.Address)) pending.Push(child.Address);
            }
        }
        return census;
    }
}
