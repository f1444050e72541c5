using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Analyzer.Collections;
using EtwSerializerProfiler.Analyzer.Kernel;

namespace EtwSerializerProfiler.Tests.Analyzer.Collections;

/// <summary>The kernel session's append-only record list reads back as a list would, across chunk edges, and its chunks stay off the large object heap.</summary>
public sealed class ChunkedListTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(ChunkedList<int>.ChunkSize - 1)]
    [InlineData(ChunkedList<int>.ChunkSize)]
    [InlineData(ChunkedList<int>.ChunkSize + 1)]
    [InlineData(3 * ChunkedList<int>.ChunkSize + 17)]
    public void It_reads_back_what_was_added_by_index_and_in_order(int count)
    {
        var list = new ChunkedList<long>();
        var expected = Enumerable.Range(0, count).Select(i => (long)i * 7919 - 3).ToList();
        foreach (var x in expected) list.Add(x);

        Assert.Equal(count, list.Count);
        Assert.Equal(expected, list);
        Assert.Equal(expected, Enumerable.Range(0, count).Select(i => list[i]));
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(5)]
    [InlineData(ChunkedList<int>.ChunkSize)]
    public void An_index_past_the_end_throws_even_inside_an_allocated_chunk(int index)
    {
        var list = new ChunkedList<int>();
        for (var i = 0; i < 5; i++) list.Add(i);
        Assert.Throws<ArgumentOutOfRangeException>(() => list[index]);
    }

    /// <summary>
    /// The point of the chunks: each is smaller than the runtime's large-object threshold (85,000 bytes) for every
    /// record the kernel session keeps, so a long trace's records are never copied and never wait for a full GC.
    /// </summary>
    [Fact]
    public void A_chunk_of_each_kernel_record_is_below_the_large_object_threshold()
    {
        const int LargeObjectBytes = 85_000;
        int[] sizes =
        [
            Unsafe.SizeOf<KernelSample>(), Unsafe.SizeOf<KernelSwitchOut>(), Unsafe.SizeOf<KernelWaking>(),
            Unsafe.SizeOf<(long TimeNs, int ThreadId)>(),
        ];
        Assert.All(sizes, size => Assert.True(size * ChunkedList<int>.ChunkSize + 32 < LargeObjectBytes, $"a chunk of {size}-byte records is {size * ChunkedList<int>.ChunkSize:N0} bytes"));

        var list = new ChunkedList<KernelSwitchOut>();
        list.Add(new KernelSwitchOut(1, 2, 'S', 3, 4));
        Assert.Equal(new KernelSwitchOut(1, 2, 'S', 3, 4), list[0]);
    }

    [Fact]
    public void A_cleared_list_reads_only_what_is_added_after_and_reuses_its_chunks()
    {
        // A kernel chunk is read into again once charged (KernelChunks.Recycle): nothing of the last fill may show.
        var list = new ChunkedList<int>();
        for (var i = 0; i < 2 * ChunkedList<int>.ChunkSize + 5; i++) list.Add(i);
        list.Clear();
        Assert.Empty(list);
        Assert.Throws<ArgumentOutOfRangeException>(() => list[0]);
        for (var i = 0; i < ChunkedList<int>.ChunkSize + 3; i++) list.Add(-i);
        Assert.Equal(Enumerable.Range(0, ChunkedList<int>.ChunkSize + 3).Select(i => -i), list);
        var before = GC.GetAllocatedBytesForCurrentThread();
        list.Clear();
        for (var i = 0; i < 2 * ChunkedList<int>.ChunkSize; i++) list.Add(i);
        Assert.True(GC.GetAllocatedBytesForCurrentThread() - before < ChunkedList<int>.ChunkSize, "refilling to the old length allocates no chunk");

        var strings = new ChunkedList<string>();
        strings.Add("kept?");
        strings.Clear();
        strings.Add("new");
        Assert.Equal(["new"], strings);
    }
}
