using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using EtwSerializerProfiler.Benchmark.Data;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// Protocol Buffers through Google.Protobuf's CodedOutputStream/CodedInputStream with hand-written codecs, beside
/// protobuf-net's generated ones (ProtobufNetSerializer). Field numbers are the [DataMember] orders.
/// Proto3 style: zero scalars are omitted, null strings/bytes are omitted (so null and "" stay distinct),
/// repeated scalars are unpacked (protobuf-net's default), the dictionary is a map (repeated key/value entries).
/// decimal and Guid are 16-byte length-delimited fields; DateTime is a fixed64 of ticks | kind &lt;&lt; 62.
/// BookShelf.Secret goes through GetSecret() and the BookShelf(string) constructor.
/// </summary>
public sealed class GoogleProtobufSerializer : Serializer
{
    public override string Name => "Google.Protobuf";

    public override string Format => "Protobuf";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.Binary | Capabilities.NoRuntimeCodegen;

    protected override Type LibraryType => typeof(CodedOutputStream);

    public override string? UnsupportedDataReason(Type dataType) =>
        dataType == typeof(BookShelf) || dataType == typeof(LargeRecordList) || dataType == typeof(SharedStringShelf)
            ? null
            : $"no hand-written protobuf codec for {dataType.Name}";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var output = new CodedOutputStream(stream, leaveOpen: true);
        switch (graph)
        {
            case BookShelf shelf: WriteBookShelf(output, shelf); break;
            case LargeRecordList list: WriteLargeRecordList(output, list); break;
            case SharedStringShelf shared: WriteSharedStringShelf(output, shared); break;
            default: throw new NotSupportedException($"no hand-written protobuf codec for {graph.GetType().Name}");
        }
        output.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        using var input = new CodedInputStream(stream, leaveOpen: true);
        if (type == typeof(BookShelf)) return ReadBookShelf(input);
        if (type == typeof(LargeRecordList)) return ReadLargeRecordList(input);
        if (type == typeof(SharedStringShelf)) return ReadSharedStringShelf(input);
        throw new NotSupportedException($"no hand-written protobuf codec for {type.Name}");
    }

    // Tags = field << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
    private const uint TagField1Bytes = 10, TagField2Bytes = 18, TagField2Varint = 16, TagField3Bytes = 26;

    private const uint TagId = 8, TagTicks = 16, TagSmall = 24, TagFlags = 32, TagIsActive = 40, TagPrice = 49,
        TagRatio = 57, TagWeight = 69, TagAmount = 74, TagName = 82, TagDescription = 90, TagCategory = 98,
        TagCreated = 105, TagModified = 113, TagKey = 122, TagNumbers = 128, TagSamples = 137, TagTags = 146,
        TagCounters = 154, TagVersion = 160, TagOptionalCode = 168;

    private const int Fixed16 = 16;

    // ---- BookShelf: 1 repeated Book, 2 string Secret. Book: 1 string Title, 2 int32 Id, 3 bytes Payload.

    private static void WriteBookShelf(CodedOutputStream output, BookShelf shelf)
    {
        foreach (var book in shelf.Books)
        {
            ArgumentNullException.ThrowIfNull(book);
            output.WriteTag(TagField1Bytes);
            output.WriteLength(BookSize(book));
            if (book.Title is { } title) { output.WriteTag(TagField1Bytes); output.WriteString(title); }
            if (book.Id != 0) { output.WriteTag(TagField2Varint); output.WriteInt32(book.Id); }
            if (book.Payload is { } payload) { output.WriteTag(TagField3Bytes); output.WriteBytes(UnsafeByteOperations.UnsafeWrap(payload)); }
        }
        if (shelf.GetSecret() is { } secret) { output.WriteTag(TagField2Bytes); output.WriteString(secret); }
    }

    private static int BookSize(Book book)
    {
        var size = 0;
        if (book.Title is { } title) size += 1 + CodedOutputStream.ComputeStringSize(title);
        if (book.Id != 0) size += 1 + CodedOutputStream.ComputeInt32Size(book.Id);
        if (book.Payload is { } payload) size += 1 + CodedOutputStream.ComputeLengthSize(payload.Length) + payload.Length;
        return size;
    }

    private static BookShelf ReadBookShelf(CodedInputStream input)
    {
        var books = new List<Book>();
        string? secret = null;
        var reader = new BookReader();
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            switch (tag)
            {
                case TagField1Bytes: input.ReadMessage(reader); books.Add(reader.Value!); break;
                case TagField2Bytes: secret = input.ReadString(); break;
                default: input.SkipLastField(); break;
            }
        }
        var shelf = secret is null ? new BookShelf() : new BookShelf(secret);
        shelf.Books = books;
        return shelf;
    }

    private sealed class BookReader : MessageReader
    {
        public Book? Value;

        public override void MergeFrom(CodedInputStream input)
        {
            var book = new Book();
            uint tag;
            while ((tag = input.ReadTag()) != 0)
            {
                switch (tag)
                {
                    case TagField1Bytes: book.Title = input.ReadString(); break;
                    case TagField2Varint: book.Id = input.ReadInt32(); break;
                    case TagField3Bytes: book.Payload = ReadByteArray(input); break;
                    default: input.SkipLastField(); break;
                }
            }
            Value = book;
        }
    }

    // ---- SharedStringShelf: 1 repeated SharedTitleBook. SharedTitleBook: 1 string Title, 2 int32 Id.

    private static void WriteSharedStringShelf(CodedOutputStream output, SharedStringShelf shelf)
    {
        foreach (var book in shelf.Books)
        {
            ArgumentNullException.ThrowIfNull(book);
            var size = 0;
            if (book.Title is { } t) size += 1 + CodedOutputStream.ComputeStringSize(t);
            if (book.Id != 0) size += 1 + CodedOutputStream.ComputeInt32Size(book.Id);
            output.WriteTag(TagField1Bytes);
            output.WriteLength(size);
            if (book.Title is { } title) { output.WriteTag(TagField1Bytes); output.WriteString(title); }
            if (book.Id != 0) { output.WriteTag(TagField2Varint); output.WriteInt32(book.Id); }
        }
    }

    private static SharedStringShelf ReadSharedStringShelf(CodedInputStream input)
    {
        var shelf = new SharedStringShelf();
        var reader = new SharedTitleBookReader();
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            if (tag == TagField1Bytes) { input.ReadMessage(reader); shelf.Books.Add(reader.Value!); }
            else input.SkipLastField();
        }
        return shelf;
    }

    private sealed class SharedTitleBookReader : MessageReader
    {
        public SharedTitleBook? Value;

        public override void MergeFrom(CodedInputStream input)
        {
            var book = new SharedTitleBook();
            uint tag;
            while ((tag = input.ReadTag()) != 0)
            {
                switch (tag)
                {
                    case TagField1Bytes: book.Title = input.ReadString(); break;
                    case TagField2Varint: book.Id = input.ReadInt32(); break;
                    default: input.SkipLastField(); break;
                }
            }
            Value = book;
        }
    }

    // ---- LargeRecordList: 1 repeated LargeRecord (fields 1..21 as in LargeRecord's [DataMember(Order)]).

    private static void WriteLargeRecordList(CodedOutputStream output, LargeRecordList list)
    {
        foreach (var r in list.Items)
        {
            ArgumentNullException.ThrowIfNull(r);
            output.WriteTag(TagField1Bytes);
            output.WriteLength(LargeRecordSize(r));
            WriteLargeRecord(output, r);
        }
    }

    private static int LargeRecordSize(LargeRecord r)
    {
        var size = 0;
        if (r.Id != 0) size += 1 + CodedOutputStream.ComputeInt32Size(r.Id);
        if (r.Ticks != 0) size += 1 + CodedOutputStream.ComputeInt64Size(r.Ticks);
        if (r.Small != 0) size += 1 + CodedOutputStream.ComputeInt32Size(r.Small);
        if (r.Flags != 0) size += 1 + CodedOutputStream.ComputeUInt32Size(r.Flags);
        if (r.IsActive) size += 2;
        if (BitConverter.DoubleToInt64Bits(r.Price) != 0) size += 1 + 8;
        if (BitConverter.DoubleToInt64Bits(r.Ratio) != 0) size += 1 + 8;
        if (BitConverter.SingleToInt32Bits(r.Weight) != 0) size += 1 + 4;
        if (!IsDefault(r.Amount)) size += 1 + 1 + Fixed16;
        if (r.Name is { } name) size += 1 + CodedOutputStream.ComputeStringSize(name);
        if (r.Description is { } description) size += 1 + CodedOutputStream.ComputeStringSize(description);
        if (r.Category is { } category) size += 1 + CodedOutputStream.ComputeStringSize(category);
        if (!IsDefault(r.Created)) size += 1 + 8;
        if (!IsDefault(r.Modified)) size += 1 + 8;
        if (r.Key != Guid.Empty) size += 1 + 1 + Fixed16;
        foreach (var n in r.Numbers) size += 2 + CodedOutputStream.ComputeInt32Size(n);
        size += r.Samples.Count * (2 + 8);
        foreach (var t in r.Tags) size += 2 + CodedOutputStream.ComputeStringSize(t ?? throw NullElement(nameof(r.Tags)));
        foreach (var kv in r.Counters)
        {
            var entry = CounterEntrySize(kv.Key, kv.Value);
            size += 2 + CodedOutputStream.ComputeLengthSize(entry) + entry;
        }
        if (r.Version != 0) size += 2 + CodedOutputStream.ComputeUInt32Size(r.Version);
        if (r.OptionalCode is { } code) size += 2 + CodedOutputStream.ComputeInt32Size(code);
        return size;
    }

    private static void WriteLargeRecord(CodedOutputStream output, LargeRecord r)
    {
        if (r.Id != 0) { output.WriteTag(TagId); output.WriteInt32(r.Id); }
        if (r.Ticks != 0) { output.WriteTag(TagTicks); output.WriteInt64(r.Ticks); }
        if (r.Small != 0) { output.WriteTag(TagSmall); output.WriteInt32(r.Small); }
        if (r.Flags != 0) { output.WriteTag(TagFlags); output.WriteUInt32(r.Flags); }
        if (r.IsActive) { output.WriteTag(TagIsActive); output.WriteBool(true); }
        if (BitConverter.DoubleToInt64Bits(r.Price) != 0) { output.WriteTag(TagPrice); output.WriteDouble(r.Price); }
        if (BitConverter.DoubleToInt64Bits(r.Ratio) != 0) { output.WriteTag(TagRatio); output.WriteDouble(r.Ratio); }
        if (BitConverter.SingleToInt32Bits(r.Weight) != 0) { output.WriteTag(TagWeight); output.WriteFloat(r.Weight); }
        if (!IsDefault(r.Amount))
        {
            Span<int> bits = stackalloc int[4];
            decimal.GetBits(r.Amount, bits);
            output.WriteTag(TagAmount);
            output.WriteLength(Fixed16);
            foreach (var b in bits) output.WriteFixed32((uint)b);
        }
        if (r.Name is { } name) { output.WriteTag(TagName); output.WriteString(name); }
        if (r.Description is { } description) { output.WriteTag(TagDescription); output.WriteString(description); }
        if (r.Category is { } category) { output.WriteTag(TagCategory); output.WriteString(category); }
        if (!IsDefault(r.Created)) { output.WriteTag(TagCreated); output.WriteSFixed64(PackDateTime(r.Created)); }
        if (!IsDefault(r.Modified)) { output.WriteTag(TagModified); output.WriteSFixed64(PackDateTime(r.Modified)); }
        if (r.Key != Guid.Empty)
        {
            Span<byte> bytes = stackalloc byte[Fixed16];
            r.Key.TryWriteBytes(bytes);
            output.WriteTag(TagKey);
            output.WriteLength(Fixed16);
            output.WriteFixed64(BinaryPrimitives.ReadUInt64LittleEndian(bytes));
            output.WriteFixed64(BinaryPrimitives.ReadUInt64LittleEndian(bytes[8..]));
        }
        foreach (var n in r.Numbers) { output.WriteTag(TagNumbers); output.WriteInt32(n); }
        foreach (var s in r.Samples) { output.WriteTag(TagSamples); output.WriteDouble(s); }
        foreach (var t in r.Tags) { output.WriteTag(TagTags); output.WriteString(t); }
        foreach (var kv in r.Counters)
        {
            output.WriteTag(TagCounters);
            output.WriteLength(CounterEntrySize(kv.Key, kv.Value));
            output.WriteTag(TagField1Bytes);
            output.WriteString(kv.Key);
            if (kv.Value != 0) { output.WriteTag(TagField2Varint); output.WriteInt32(kv.Value); }
        }
        if (r.Version != 0) { output.WriteTag(TagVersion); output.WriteUInt32(r.Version); }
        if (r.OptionalCode is { } code) { output.WriteTag(TagOptionalCode); output.WriteInt32(code); }
    }

    private static int CounterEntrySize(string key, int value) =>
        1 + CodedOutputStream.ComputeStringSize(key) + (value != 0 ? 1 + CodedOutputStream.ComputeInt32Size(value) : 0);

    private static LargeRecordList ReadLargeRecordList(CodedInputStream input)
    {
        var list = new LargeRecordList();
        var reader = new LargeRecordReader();
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            if (tag == TagField1Bytes) { input.ReadMessage(reader); list.Items.Add(reader.Value!); }
            else input.SkipLastField();
        }
        return list;
    }

    private sealed class LargeRecordReader : MessageReader
    {
        private readonly CounterEntryReader _entry = new();
        public LargeRecord? Value;

        public override void MergeFrom(CodedInputStream input)
        {
            var r = new LargeRecord();
            uint tag;
            while ((tag = input.ReadTag()) != 0)
            {
                switch (tag)
                {
                    case TagId: r.Id = input.ReadInt32(); break;
                    case TagTicks: r.Ticks = input.ReadInt64(); break;
                    case TagSmall: r.Small = checked((short)input.ReadInt32()); break;
                    case TagFlags: r.Flags = checked((byte)input.ReadUInt32()); break;
                    case TagIsActive: r.IsActive = input.ReadBool(); break;
                    case TagPrice: r.Price = input.ReadDouble(); break;
                    case TagRatio: r.Ratio = input.ReadDouble(); break;
                    case TagWeight: r.Weight = input.ReadFloat(); break;
                    case TagAmount:
                    {
                        ExpectFixed16(input);
                        Span<int> bits = [(int)input.ReadFixed32(), (int)input.ReadFixed32(), (int)input.ReadFixed32(), (int)input.ReadFixed32()];
                        r.Amount = FromSpan.Decimal(bits);
                        break;
                    }
                    case TagName: r.Name = input.ReadString(); break;
                    case TagDescription: r.Description = input.ReadString(); break;
                    case TagCategory: r.Category = input.ReadString(); break;
                    case TagCreated: r.Created = UnpackDateTime(input.ReadSFixed64()); break;
                    case TagModified: r.Modified = UnpackDateTime(input.ReadSFixed64()); break;
                    case TagKey:
                    {
                        ExpectFixed16(input);
                        Span<byte> bytes = stackalloc byte[Fixed16];
                        BinaryPrimitives.WriteUInt64LittleEndian(bytes, input.ReadFixed64());
                        BinaryPrimitives.WriteUInt64LittleEndian(bytes[8..], input.ReadFixed64());
                        r.Key = FromSpan.Guid(bytes);
                        break;
                    }
                    case TagNumbers: r.Numbers.Add(input.ReadInt32()); break;
                    case TagSamples: r.Samples.Add(input.ReadDouble()); break;
                    case TagTags: r.Tags.Add(input.ReadString()); break;
                    case TagCounters: input.ReadMessage(_entry); r.Counters[_entry.Key] = _entry.Value; break;
                    case TagVersion: r.Version = input.ReadUInt32(); break;
                    case TagOptionalCode: r.OptionalCode = input.ReadInt32(); break;
                    default: input.SkipLastField(); break;
                }
            }
            Value = r;
        }
    }

    private sealed class CounterEntryReader : MessageReader
    {
        public string Key = "";
        public int Value;

        public override void MergeFrom(CodedInputStream input)
        {
            Key = "";
            Value = 0;
            uint tag;
            while ((tag = input.ReadTag()) != 0)
            {
                switch (tag)
                {
                    case TagField1Bytes: Key = input.ReadString(); break;
                    case TagField2Varint: Value = input.ReadInt32(); break;
                    default: input.SkipLastField(); break;
                }
            }
        }
    }

    // ---- helpers

    /// <summary>
    /// Nested messages are read through CodedInputStream.ReadMessage, which applies the length limit; it needs an
    /// IMessage. These readers are reused for every element of one Deserialize call (one allocation per call).
    /// </summary>
    private abstract class MessageReader : IMessage
    {
        public MessageDescriptor Descriptor => null!;

        public abstract void MergeFrom(CodedInputStream input);

        public void WriteTo(CodedOutputStream output) => throw new NotSupportedException("write path is hand-written");

        public int CalculateSize() => throw new NotSupportedException("write path is hand-written");
    }

    private static byte[] ReadByteArray(CodedInputStream input)
    {
        var bytes = input.ReadBytes();
        // ReadBytes hands the ByteString a fresh array; take it over instead of copying it again.
        return MemoryMarshal.TryGetArray(bytes.Memory, out var segment) && segment.Offset == 0 && segment.Count == segment.Array!.Length
            ? segment.Array
            : bytes.ToByteArray();
    }

    private static void ExpectFixed16(CodedInputStream input)
    {
        var length = input.ReadLength();
        if (length != Fixed16) throw new InvalidDataException($"expected a 16-byte field, got {length} bytes");
    }

    private static bool IsDefault(decimal d) => d == 0m && d.Scale == 0 && !decimal.IsNegative(d);

    private static bool IsDefault(DateTime d) => d.Ticks == 0 && d.Kind == DateTimeKind.Unspecified;

    private static long PackDateTime(DateTime d) => (long)((ulong)d.Ticks | ((ulong)d.Kind << 62));

    private static DateTime UnpackDateTime(long packed) =>
        new(packed & 0x3FFF_FFFF_FFFF_FFFF, (DateTimeKind)((ulong)packed >> 62));

    private static InvalidOperationException NullElement(string member) =>
        new($"protobuf cannot encode a null element in {member}");
}
