using System.Buffers.Binary;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// Walks the top-level objects of a .nettrace (format V5: FastSerialization framing) without decoding events, to
/// tell how many bytes go to event payloads, stacks, metadata and sequence points, and to read the Trace header
/// (which carries the sampling interval the runtime used). Newer layouts are reported as unknown, not misread.
/// A .NET Core 2.1 .netperf (format V3) has the same framing without the "Nettrace" magic, and keeps stacks and
/// metadata inside its event blocks.
/// </summary>
public sealed class NetTraceBlocks
{
    private const byte BeginObject = 5;
    /// <summary>The object tag of .netperf files (BeginObject, where .nettrace uses BeginPrivateObject).</summary>
    private const byte NetPerfBeginObject = 4;
    private const byte EndObject = 6;
    private const byte NullReference = 1;

    public Dictionary<string, (int Count, long Bytes)> Blocks { get; } = new(StringComparer.Ordinal);
    public long FileBytes { get; private set; }
    /// <summary>The file's own header ("Nettrace" and the serializer name), before the first object.</summary>
    public long HeaderBytes { get; private set; }
    /// <summary>Whether the end-of-stream tag was read: then header, blocks and the tag are the whole file.</summary>
    public bool Complete { get; private set; }
    public int? ProcessId { get; private set; }
    public int? Processors { get; private set; }
    public double? ExpectedSamplingMs { get; private set; }
    public bool Truncated { get; private set; }
    public string? Unsupported { get; private set; }
    /// <summary>A .NET Core 2.x .netperf file: no separate stack or metadata blocks.</summary>
    public bool NetPerf { get; private set; }
    /// <summary>Where each top-level object starts, and the end-of-stream tag: the places a file can be cut cleanly.</summary>
    public List<long> Boundaries { get; } = [];
    /// <summary>
    /// Bytes after the end-of-stream tag. A reader stops at that tag, so anything after it (a second trace appended,
    /// a copy gone wrong) would be silently ignored; the analyzer says so instead.
    /// </summary>
    public long TrailingBytes { get; private set; }

    public static NetTraceBlocks Scan(string path)
    {
        var result = new NetTraceBlocks();
        // A small buffer: the walk reads each block's header and seeks past its body, so a 64 KiB buffer read two
        // thirds of a trace's bytes (blocks of about 100 KB) before the pass read them all again; 4 KiB reads 4%.
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1 << 12);
        result.FileBytes = stream.Length;
        using var reader = new BinaryReader(stream);
        try
        {
            result.Walk(reader, stream);
        }
        catch (EndOfStreamException)
        {
            result.Truncated = true;
        }
        return result;
    }

    /// <summary>Lengths read from the file are checked before use: a damaged length must not become a huge allocation or a seek before the start.</summary>
    private const int MaxNameLength = 4096;

    /// <summary>
    /// Names are ASCII; read as bytes, decoded leniently. BinaryReader.ReadChars on damaged UTF-8 can throw
    /// ArgumentException ("The output char buffer is too small") instead of reading replacement characters.
    /// </summary>
    private static string Text(BinaryReader reader, int bytes)
    {
        var read = reader.ReadBytes(bytes);
        if (read.Length < bytes) throw new EndOfStreamException();
        return System.Text.Encoding.UTF8.GetString(read);
    }

    private void Walk(BinaryReader reader, Stream stream)
    {
        NetPerf = Input.NetPerfFile.Recognize(reader.ReadBytes(Input.NetPerfFile.HeaderBytes));
        stream.Position = 0;
        if (!NetPerf && Text(reader, 8) != "Nettrace") throw new BadInputException("not a .nettrace file");
        var headerLength = reader.ReadInt32();
        if (headerLength is < 0 or > MaxNameLength) { Unsupported = $"serialization header of {headerLength} bytes"; return; }
        var serializer = Text(reader, headerLength);
        if (serializer != "!FastSerialization.1") { Unsupported = $"serialization '{serializer}'"; return; }
        HeaderBytes = stream.Position;
        var beginObject = NetPerf ? NetPerfBeginObject : BeginObject;
        while (true)
        {
            // A block's bytes include its framing (type header and end tag): small blocks are not free.
            var start = stream.Position;
            Boundaries.Add(start);
            var tag = reader.ReadByte();
            if (tag == NullReference)
            {
                // End of stream marker: what follows is not part of this trace.
                Complete = true;
                TrailingBytes = stream.Length - stream.Position;
                return;
            }
            if (tag != beginObject || reader.ReadByte() != beginObject || reader.ReadByte() != NullReference)
            {
                Unsupported = $"unexpected tag at offset {stream.Position - 1}";
                return;
            }
            reader.ReadInt32(); // version
            reader.ReadInt32(); // minimum reader version
            var nameLength = reader.ReadInt32();
            if (nameLength is < 0 or > MaxNameLength) { Unsupported = $"type name of {nameLength} bytes at offset {stream.Position - 4}"; return; }
            var name = Text(reader, nameLength);
            if (reader.ReadByte() != EndObject) { Unsupported = $"malformed type header for {name}"; return; }
            if (name == "Trace")
            {
                var header = reader.ReadBytes(48).AsSpan();
                if (header.Length < 48) throw new EndOfStreamException();
                ProcessId = BinaryPrimitives.ReadInt32LittleEndian(header[36..]);
                Processors = BinaryPrimitives.ReadInt32LittleEndian(header[40..]);
                var samplingNs = BinaryPrimitives.ReadInt32LittleEndian(header[44..]);
                ExpectedSamplingMs = samplingNs > 0 ? samplingNs / 1_000_000.0 : null;
            }
            else
            {
                var size = reader.ReadInt32();
                if (size < 0) { Unsupported = $"{name} of {size} bytes at offset {stream.Position - 4}"; return; }
                var aligned = (stream.Position + 3) & ~3L;
                stream.Position = aligned + size;
                if (stream.Position > stream.Length) throw new EndOfStreamException();
            }
            if (reader.ReadByte() != EndObject) { Unsupported = $"malformed {name} object"; return; }
            var (count, bytes) = Blocks.GetValueOrDefault(name);
            Blocks[name] = (count + 1, bytes + (stream.Position - start));
        }
    }
}
