namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// The process's executable mappings as perf saw them (MMAP2 records, in time order). perf prints a frame in a
/// mapped file as an offset into that file; JIT-compiled code (in /memfd:doublemapper under W^X) and ReadyToRun
/// code (in the mapped .dll) are named by absolute addresses in the EventPipe trace, so the offset is turned back
/// into the address with the mapping that was current when the sample was taken.
/// </summary>
internal sealed class ExecutableMaps
{
    private readonly record struct Mapping(ulong Start, ulong Length, ulong FileOffset);

    private readonly Dictionary<string, List<Mapping>> _byFile = new(StringComparer.Ordinal);

    public void Add(string file, ulong start, ulong length, ulong fileOffset)
    {
        if (!_byFile.TryGetValue(file, out var list)) _byFile[file] = list = [];
        // A mapping grown or replaced at the same address supersedes the old one.
        list.RemoveAll(m => m.Start == start);
        list.Add(new Mapping(start, length, fileOffset));
    }

    /// <summary>The absolute address of an offset into a file, or null when no mapping of it covers the offset.</summary>
    public ulong? Absolute(string file, ulong offset)
    {
        if (!_byFile.TryGetValue(file, out var list)) return null;
        // Newest first: if a range was mapped twice, the newer mapping is the one that executes now.
        for (var i = list.Count - 1; i >= 0; i--)
        {
            var m = list[i];
            if (offset >= m.FileOffset && offset - m.FileOffset < m.Length) return m.Start + (offset - m.FileOffset);
        }
        return null;
    }
}
