using System.Reflection;
using System.Reflection.Emit;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// The return addresses of an EventPipe event's stack, leaf first, read from a raw <see cref="EventPipeEventSource"/>
/// pass without TraceLog. TraceEvent hands an EventPipe event's stack to TraceLog as the ETW event record's
/// STACK_TRACE64 extended item and has no public API for it; converting a trace to .etlx only to read its stacks
/// back costs three times a raw pass (docs/analyzer.md, "One raw pass"). The record's layout is the ETW
/// EVENT_RECORD that TraceEvent mirrors (a Windows ABI, fixed), and the record pointer is TraceEvent's internal
/// field: both are checked once (<see cref="Available"/>), and without them the analyzer converts as before.
/// </summary>
internal static unsafe class EventStackAddresses
{
    // EVENT_RECORD: EVENT_HEADER (80 bytes), ETW_BUFFER_CONTEXT (4), ExtendedDataCount (ushort), UserDataLength
    // (ushort), ExtendedData (pointer). EVENT_HEADER_EXTENDED_DATA_ITEM: Reserved1, ExtType, Linkage, DataSize
    // (ushorts), DataPtr (ulong). A STACK_TRACE64 item is a MatchId (ulong) then the addresses.
    private const int ExtendedDataCountOffset = 84;
    private const int ExtendedDataOffset = 88;
    private const int ItemSize = 16;
    private const ushort StackTrace32 = 5;
    private const ushort StackTrace64 = 6;

    private static readonly Func<TraceEvent, IntPtr>? RecordOf = Compile();

    /// <summary>Whether this TraceEvent keeps the record where this reader looks (its internal field may be renamed).</summary>
    public static bool Available => RecordOf is not null && IntPtr.Size == 8;

    /// <summary>
    /// The event's stack, leaf first, or empty. A 64-bit trace's addresses are read in place (valid only inside the
    /// event's callback); a 32-bit one's are widened into <paramref name="scratch"/>.
    /// </summary>
    public static ReadOnlySpan<ulong> Of(TraceEvent e, List<ulong> scratch)
    {
        var record = (byte*)RecordOf!(e);
        if (record == null) return [];
        var count = *(ushort*)(record + ExtendedDataCountOffset);
        if (count == 0) return [];
        var items = *(byte**)(record + ExtendedDataOffset);
        for (var i = 0; i < count; i++)
        {
            var item = items + i * ItemSize;
            var type = *(ushort*)(item + 2);
            var size = *(ushort*)(item + 6);
            var data = (byte*)*(ulong*)(item + 8);
            if (type == StackTrace64 && size >= 8) return new ReadOnlySpan<ulong>(data + 8, (size - 8) / 8);
            if (type == StackTrace32 && size >= 8)
            {
                scratch.Clear();
                var narrow = new ReadOnlySpan<uint>(data + 8, (size - 8) / 4);
                foreach (var a in narrow) scratch.Add(a);
                return System.Runtime.InteropServices.CollectionsMarshal.AsSpan(scratch);
            }
        }
        return [];
    }

    /// <summary>A getter for TraceEvent's internal record pointer (a DynamicMethod may read a non-public field).</summary>
    private static Func<TraceEvent, IntPtr>? Compile()
    {
        var field = typeof(TraceEvent).GetField("eventRecord", BindingFlags.NonPublic | BindingFlags.Instance);
        if (field is null || !field.FieldType.IsPointer) return null;
        if (!System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported)
            return e => (IntPtr)Pointer.Unbox(field.GetValue(e)!);
        try
        {
            var method = new DynamicMethod("EventRecordOf", typeof(IntPtr), [typeof(TraceEvent)], typeof(EventStackAddresses).Module, skipVisibility: true);
            var il = method.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldfld, field);
            il.Emit(OpCodes.Conv_I);
            il.Emit(OpCodes.Ret);
            return method.CreateDelegate<Func<TraceEvent, IntPtr>>();
        }
        catch (Exception ex) when (ex is NotSupportedException or InvalidProgramException or MemberAccessException)
        {
            return null;
        }
    }
}
