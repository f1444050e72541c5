using System.Buffers.Binary;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Stats;

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

    public static NetTraceBlocks Scan(string path)
    {
        var result = new NetTraceBlocks();
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1 << 16, FileOptions.SequentialScan);
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

    private void Walk(BinaryReader reader, Stream stream)
    {
        NetPerf = Input.NetPerfFile.Recognize(reader.ReadBytes(Input.NetPerfFile.HeaderBytes));
        stream.Position = 0;
        if (!NetPerf && new string(reader.ReadChars(8)) != "Nettrace") throw new BadInputException("not a .nettrace file");
        var headerLength = reader.ReadInt32();
        var serializer = new string(reader.ReadChars(headerLength));
        if (serializer != "!FastSerialization.1") { Unsupported = $"serialization '{serializer}'"; return; }
        HeaderBytes = stream.Position;
        var beginObject = NetPerf ? NetPerfBeginObject : BeginObject;
        while (true)
        {
            // A block's bytes include its framing (type header and end tag): small blocks are not free.
            var start = stream.Position;
            var tag = reader.ReadByte();
            if (tag == NullReference) { Complete = true; return; } // end of stream marker
            if (tag != beginObject || reader.ReadByte() != beginObject || reader.ReadByte() != NullReference)
            {
                Unsupported = $"unexpected tag at offset {stream.Position - 1}";
                return;
            }
            reader.ReadInt32(); // version
            reader.ReadInt32(); // minimum reader version
            var nameLength = reader.ReadInt32();
            var name = new string(reader.ReadChars(nameLength));
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
