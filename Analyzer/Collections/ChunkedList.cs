using System.Collections;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Analyzer.Collections;

/// <summary>
/// An append-only list in fixed chunks of <see cref="ChunkSize"/> items, for what grows with the trace: the kernel
/// session's records (one per sample or switch) and the pass's GC pauses (one per GC). A
/// <see cref="List{T}"/> grows by doubling: each growth copies into a larger array and leaves the old one as garbage,
/// and past 85,000 bytes both live on the large object heap, which only a full collection frees and whose freed space
/// stays committed, so a long trace's peak held each list about twice. Chunks of 2,048 records (at most 48 KB of the
/// largest record) stay on the small object heap and are never copied.
/// </summary>
internal sealed class ChunkedList<T> : IReadOnlyList<T>
{
    private const int Shift = 11;
    public const int ChunkSize = 1 << Shift;
    private const int Mask = ChunkSize - 1;
    private readonly List<T[]> _chunks = [];

    public int Count { get; private set; }

    public T this[int index]
    {
        get
        {
            if ((uint)index >= (uint)Count) throw new ArgumentOutOfRangeException(nameof(index), index, $"the list holds {Count}");
            return _chunks[index >> Shift][index & Mask];
        }
    }

    public void Add(T item)
    {
        var slot = Count & Mask;
        var chunk = Count >> Shift;
        if (chunk == _chunks.Count) _chunks.Add(new T[ChunkSize]);
        _chunks[chunk][slot] = item;
        Count++;
    }

    /// <summary>Empty again, its arrays kept for the next items (a kernel chunk read into again: <see cref="KernelTrace.Clear"/>).</summary>
    public void Clear()
    {
        if (RuntimeHelpers.IsReferenceOrContainsReferences<T>())
            foreach (var chunk in _chunks) Array.Clear(chunk);
        Count = 0;
    }

    public IEnumerator<T> GetEnumerator()
    {
        for (var c = 0; c < _chunks.Count; c++)
        {
            var chunk = _chunks[c];
            var n = Math.Min(ChunkSize, Count - c * ChunkSize);
            for (var i = 0; i < n; i++) yield return chunk[i];
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
