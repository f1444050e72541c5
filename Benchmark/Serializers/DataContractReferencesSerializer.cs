using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Runtime.Serialization;
using System.Xml;
using Dcs = System.Runtime.Serialization.DataContractSerializer;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// DataContractSerializer with PreserveObjectReferences: every object and string is written once and referenced
/// by id afterwards, so N books sharing one title come back sharing one string (the only serializer here that
/// keeps object identity for strings). Larger XML and an id table are the price.
/// </summary>
public sealed class DataContractReferencesSerializer : Serializer
{
    private readonly ConcurrentDictionary<Type, Dcs> _serializers = new();

    public override string Name => "DataContract.References";

    public override string Format => "XML (object references)";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.SharedReferences;

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
        // Not disposed: closing an XmlDictionaryReader closes the caller's stream.
        var reader = XmlDictionaryReader.CreateTextReader(stream, XmlDictionaryReaderQuotas.Max);
        return For(type).ReadObject(reader) ?? throw new InvalidDataException("DataContractSerializer returned null");
    }

    private Dcs For(Type type) => _serializers.GetOrAdd(type, static t => new Dcs(t, new DataContractSerializerSettings { PreserveObjectReferences = true }));
}
