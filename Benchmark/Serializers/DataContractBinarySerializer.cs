using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Xml;
using Dcs = System.Runtime.Serialization.DataContractSerializer;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// DataContractSerializer through the binary XML writer/reader (the WCF net.tcp encoding, no dictionary).
/// Same data contract rules as the text variant: private [DataMember] kept, strings not reference-tracked,
/// per-type reader/writer code emitted at run time.
/// </summary>
public sealed class DataContractBinarySerializer : Serializer
{
    private readonly ConcurrentDictionary<Type, Dcs> _serializers = new();

    public override string Name => "DataContract.Binary";

    public override string Format => "Binary XML";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.Binary;

    protected override Type LibraryType => typeof(Dcs);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var writer = XmlDictionaryWriter.CreateBinaryWriter(stream, dictionary: null, session: null, ownsStream: false);
        For(graph.GetType()).WriteObject(writer, graph);
        writer.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        // Not disposed: closing an XmlDictionaryReader closes the stream (XmlObjectSerializer.ReadObject(Stream) does the same).
        var reader = XmlDictionaryReader.CreateBinaryReader(stream, XmlDictionaryReaderQuotas.Max);
        return For(type).ReadObject(reader) ?? throw new InvalidDataException("DataContractSerializer returned null");
    }

    private Dcs For(Type type) => _serializers.GetOrAdd(type, static t => new Dcs(t));
}
