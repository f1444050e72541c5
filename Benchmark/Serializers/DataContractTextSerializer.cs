using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Xml;
using Dcs = System.Runtime.Serialization.DataContractSerializer;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// DataContractSerializer writing text XML. Keeps the private [DataMember] BookShelf.Secret.
/// [DataContract(IsReference = true)] tracks objects only: shared strings are written (and read back) per use.
/// Emits XmlFormatWriter/Reader delegates per type at run time (dynamic methods).
/// </summary>
public sealed class DataContractTextSerializer : Serializer
{
    private readonly ConcurrentDictionary<Type, Dcs> _serializers = new();

    public override string Name => "DataContract";

    public override string Format => "XML";

    public override Capabilities Capabilities => Capabilities.PrivateMembers;

    protected override Type LibraryType => typeof(Dcs);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var writer = XmlDictionaryWriter.CreateTextWriter(stream, System.Text.Encoding.UTF8, ownsStream: false);
        For(graph.GetType()).WriteObject(writer, graph);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        // Not disposed: closing an XmlDictionaryReader closes the stream (XmlObjectSerializer.ReadObject(Stream) does the same).
        var reader = XmlDictionaryReader.CreateTextReader(stream, XmlDictionaryReaderQuotas.Max);
        return For(type).ReadObject(reader) ?? throw new InvalidDataException("DataContractSerializer returned null");
    }

    private Dcs For(Type type) => _serializers.GetOrAdd(type, static t => new Dcs(t));
}
