using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// The allocated type's name of each GCAllocationTick without a new string per event: the name is read in place from
/// the payload and looked up among the names met before; a name is made once. A trace ticks hundreds of thousands of
/// times over a few hundred types: TraceEvent's <see cref="GCAllocationTickTraceData.TypeName"/> made a string each
/// time (55 MB of strings in a cold analysis of a 5 s a run folder, the largest allocation after TraceEvent's own).
/// </summary>
internal sealed class AllocatedTypeNames
{
    /// <summary>AllocationAmount, AllocationKind, ClrInstanceID and AllocationAmount64 (version 2 on), then the type id (a pointer) and the name.</summary>
    private const int FixedBytesBeforeTypeId = 4 + 4 + 2 + 8;

    private readonly Dictionary<string, string> _names = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string>.AlternateLookup<ReadOnlySpan<char>> _bySpan;

    public AllocatedTypeNames() => _bySpan = _names.GetAlternateLookup<ReadOnlySpan<char>>();

    /// <summary>What <see cref="GCAllocationTickTraceData.TypeName"/> says ("" before version 2), the same string for the same name.</summary>
    public unsafe string Of(GCAllocationTickTraceData e)
    {
        if (e.Version < 2) return e.TypeName;
        var offset = FixedBytesBeforeTypeId + e.PointerSize;
        var bytes = e.EventDataLength - offset;
        if (bytes < sizeof(char)) return e.TypeName;
        // UTF-16, null-terminated, as TraceEvent reads it; a payload cut before the terminator is left to TraceEvent.
        var chars = new ReadOnlySpan<char>((byte*)e.DataStart + offset, bytes / sizeof(char));
        var end = chars.IndexOf('\0');
        if (end < 0) return e.TypeName;
        chars = chars[..end];
        if (_bySpan.TryGetValue(chars, out var name)) return name;
        name = new string(chars);
        _names[name] = name;
        return name;
    }
}
