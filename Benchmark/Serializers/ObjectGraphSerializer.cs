using System.Runtime.CompilerServices;
using System.Text;
using EtwSerializerProfiler.Benchmark.Data;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// A BinaryFormatter-style graph serializer that reproduces seed 000's O(n²) deserialization on a runtime where
/// BinaryFormatter itself no longer runs. Like NRBF, every object, string and byte[] gets a sequential id when first
/// written and a repeat is written as a reference to that id, so object identity (the shared title) survives.
/// Writing tracks ids in a hash table (linear, as ObjectIDGenerator was); reading registers every object in an
/// <see cref="ObjectHolderTable"/>, BinaryFormatter's 4096-bucket object table, which makes reads quadratic beyond
/// a few thousand objects. Members are read and written by hand-written code for the benchmark's types, so no
/// reflection or code generation muddies the profile: the table is the only thing that grows.
/// </summary>
public sealed class ObjectGraphSerializer : Serializer
{
    private static readonly UTF8Encoding s_utf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    private enum Tag : byte { Null = 0, Object = 1, Reference = 2 }

    private enum Kind : byte { BookShelf = 1, Book = 2, String = 3, Bytes = 4, SharedStringShelf = 5, SharedTitleBook = 6 }

    public override string Name => "ObjectGraph";

    public override string Format => "Binary (object graph)";

    public override Capabilities Capabilities =>
        Capabilities.PrivateMembers | Capabilities.SharedReferences | Capabilities.Binary | Capabilities.NoRuntimeCodegen;

    public override string? UnsupportedDataReason(Type dataType) =>
        dataType == typeof(BookShelf) || dataType == typeof(SharedStringShelf)
            ? null
            : $"ObjectGraph has hand-written members for BookShelf and SharedStringShelf only, not {dataType.Name}";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var writer = new BinaryWriter(stream, s_utf8, leaveOpen: true);
        new GraphWriter(writer).WriteObject(graph);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        using var reader = new BinaryReader(stream, s_utf8, leaveOpen: true);
        var root = new GraphReader(reader).ReadObject();
        return type.IsInstanceOfType(root) ? root! : throw new InvalidDataException($"ObjectGraph read {root?.GetType().Name ?? "null"}, expected {type.Name}");
    }

    private sealed class GraphWriter(BinaryWriter w)
    {
        private readonly Dictionary<object, int> _ids = new(ReferenceEqualityComparer.Instance);

        public void WriteObject(object? value)
        {
            if (value is null) { w.Write((byte)Tag.Null); return; }
            if (_ids.TryGetValue(value, out var id))
            {
                w.Write((byte)Tag.Reference);
                w.Write(id);
                return;
            }
            _ids.Add(value, _ids.Count + 1); // ids are implicit on the wire: the reader counts objects the same way
            w.Write((byte)Tag.Object);
            switch (value)
            {
                case string s: w.Write((byte)Kind.String); w.Write(s); break;
                case byte[] bytes: w.Write((byte)Kind.Bytes); w.Write(bytes.Length); w.Write(bytes); break;
                case BookShelf shelf:
                    w.Write((byte)Kind.BookShelf);
                    WriteObject(shelf.GetSecret());
                    w.Write(shelf.Books.Count);
                    foreach (var book in shelf.Books) WriteObject(book);
                    break;
                case Book book:
                    w.Write((byte)Kind.Book);
                    WriteObject(book.Title);
                    w.Write(book.Id);
                    WriteObject(book.Payload);
                    break;
                case SharedStringShelf shared:
                    w.Write((byte)Kind.SharedStringShelf);
                    w.Write(shared.Books.Count);
                    foreach (var book in shared.Books) WriteObject(book);
                    break;
                case SharedTitleBook titled:
                    w.Write((byte)Kind.SharedTitleBook);
                    WriteObject(titled.Title);
                    w.Write(titled.Id);
                    break;
                default: throw new NotSupportedException($"ObjectGraph cannot write {value.GetType().Name}");
            }
        }
    }

    private sealed class GraphReader(BinaryReader r)
    {
        private readonly ObjectHolderTable _objects = new();
        private int _nextId;

        public object? ReadObject()
        {
            switch ((Tag)r.ReadByte())
            {
                case Tag.Null: return null;
                case Tag.Reference:
                    var id = r.ReadInt32();
                    return _objects.Find(id) ?? throw new InvalidDataException($"reference to unknown object id {id}");
                case Tag.Object: break;
                default: throw new InvalidDataException("bad record tag");
            }
            var newId = ++_nextId;
            switch ((Kind)r.ReadByte())
            {
                case Kind.String: return Register(newId, r.ReadString());
                case Kind.Bytes:
                    var length = r.ReadInt32();
                    if (length < 0) throw new InvalidDataException($"negative byte[] length {length}");
                    var bytes = r.ReadBytes(length);
                    return bytes.Length == length ? Register(newId, bytes) : throw new EndOfStreamException();
                case Kind.BookShelf:
                {
                    // The secret comes first on the wire because the public constructor is the only way to set it
                    // without reflection; the shelf is registered before its books, as ObjectManager registers parents.
                    var secret = Read<string>();
                    var shelf = Register(newId, secret is null ? new BookShelf() : new BookShelf(secret));
                    var count = Count();
                    shelf.Books.Capacity = count;
                    for (var i = 0; i < count; i++) shelf.Books.Add(Read<Book>() ?? throw new InvalidDataException("null book"));
                    return shelf;
                }
                case Kind.Book:
                {
                    var book = Register(newId, new Book());
                    book.Title = Read<string>();
                    book.Id = r.ReadInt32();
                    book.Payload = Read<byte[]>();
                    return book;
                }
                case Kind.SharedStringShelf:
                {
                    var shelf = Register(newId, new SharedStringShelf());
                    var count = Count();
                    shelf.Books.Capacity = count;
                    for (var i = 0; i < count; i++) shelf.Books.Add(Read<SharedTitleBook>() ?? throw new InvalidDataException("null book"));
                    return shelf;
                }
                case Kind.SharedTitleBook:
                {
                    var book = Register(newId, new SharedTitleBook());
                    book.Title = Read<string>();
                    book.Id = r.ReadInt32();
                    return book;
                }
                default: throw new InvalidDataException("unknown object kind");
            }
        }

        private T? Read<T>() where T : class =>
            ReadObject() switch
            {
                null => null,
                T t => t,
                var other => throw new InvalidDataException($"expected {typeof(T).Name}, read {other.GetType().Name}"),
            };

        private T Register<T>(int id, T value) where T : class
        {
            _objects.Register(id, value);
            return value;
        }

        private int Count()
        {
            var count = r.ReadInt32();
            return count >= 0 ? count : throw new InvalidDataException($"negative count {count}");
        }
    }
}
