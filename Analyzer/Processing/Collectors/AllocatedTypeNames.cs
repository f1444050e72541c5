using EtwSerializerProfiler.Analyzer.Input;
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
    public string Of(GCAllocationTickTraceData e)
    {
        if (e.Version < 2) return e.TypeName;
        var chars = PayloadFields.Utf16From(e, FixedBytesBeforeTypeId + e.PointerSize);
        // A payload cut before the terminator is left to TraceEvent.
        if (!PayloadFields.TakeString(ref chars, out var typeName)) return e.TypeName;
        if (_bySpan.TryGetValue(typeName, out var name)) return name;
        name = new string(typeName);
        _names[name] = name;
        return name;
    }
}
