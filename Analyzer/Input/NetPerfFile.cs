using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// .NET Core 2.x EventPipe files (".netperf"): the FastSerialization stream that "Nettrace" files later wrapped,
/// without that magic. TraceEvent reads them through the same EventPipeEventSource and TraceLog conversion as
/// .nettrace files, from format version 3 (.NET Core 2.1) on; .NET Core 2.0 wrote versions 1 and 2.
/// </summary>
internal static class NetPerfFile
{
    /// <summary>Enough of the file for <see cref="Recognize"/>: serializer name and the first object's type header.</summary>
    public const int HeaderBytes = 96;

    private static readonly byte[] s_serializerName = "!FastSerialization.1"u8.ToArray();

    /// <summary>The first object of the stream: "Trace" in version 3, "Microsoft.DotNet.Runtime.EventPipeFile" before.</summary>
    private static readonly string[] s_traceObjectNames = ["Trace", "Microsoft.DotNet.Runtime.EventPipeFile"];

    private const byte BeginObject = 4;
    private const byte NullReference = 1;

    /// <summary>
    /// True when <paramref name="head"/> starts a .netperf stream. The type name keeps .etlx files out: they are
    /// FastSerialization streams too, whose first object is TraceEvent's TraceLog.
    /// </summary>
    public static bool Recognize(ReadOnlySpan<byte> head)
    {
        var at = 0;
        if (!TryInt(head, ref at, out var nameLength) || nameLength != s_serializerName.Length) return false;
        if (head.Length < at + nameLength || !head.Slice(at, nameLength).SequenceEqual(s_serializerName)) return false;
        at += nameLength;
        // Object header: BeginObject, BeginObject (its type), NullReference, version, minimum reader version, name.
        if (head.Length < at + 3 || head[at] != BeginObject || head[at + 1] != BeginObject || head[at + 2] != NullReference) return false;
        at += 3 + 8;
        if (!TryInt(head, ref at, out var typeLength) || typeLength <= 0 || head.Length < at + typeLength) return false;
        var type = System.Text.Encoding.ASCII.GetString(head.Slice(at, typeLength));
        return s_traceObjectNames.Contains(type, StringComparer.Ordinal);
    }

    /// <summary>Lets TraceEvent read the header: a version it does not read becomes one line that says so.</summary>
    public static void CheckReadable(string path)
    {
        try
        {
            using var probe = new EventPipeEventSource(path);
        }
        catch (UnsupportedFormatVersionException ex)
        {
            throw new BadInputException($"{path}: a .netperf file of EventPipe format version {ex.RequestedVersion} ({RuntimeOf(ex.RequestedVersion)}); "
                + $"TraceEvent, which esp reads traces with, reads versions {ex.MinSupportedVersion} to {ex.MaxSupportedVersion} (.NET Core 2.1 and later): record the app again on .NET Core 2.1 or later", ex);
        }
        catch (Exception ex) when (ex is FormatException or EndOfStreamException or IOException or InvalidOperationException)
        {
            throw new BadInputException($"{path}: a .netperf file TraceEvent cannot read ({ex.GetType().Name}: {ex.Message}); the file is corrupt or truncated", ex);
        }
    }

    private static string RuntimeOf(int version) => version switch
    {
        <= 2 => ".NET Core 2.0",
        3 => ".NET Core 2.1 or 2.2",
        _ => ".NET Core 3.0 or later",
    };

    private static bool TryInt(ReadOnlySpan<byte> head, ref int at, out int value)
    {
        value = 0;
        if (head.Length < at + 4) return false;
        value = System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(head[at..]);
        at += 4;
        return true;
    }
}
