using System.Runtime.CompilerServices;
using System.Xml;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// DataContractSerializer through the binary XML writer/reader (the WCF net.tcp encoding, no dictionary).
/// Same data contract rules as the text variant: private [DataMember] kept, strings not reference-tracked,
/// per-type reader/writer code emitted at run time.
/// </summary>
public sealed class DataContractBinarySerializer : DataContractSerializerBase
{
    public override string Name => "DataContract.Binary";

    public override string Format => "Binary XML";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.Binary;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) => Write(graph, stream);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) => Read(type, stream);

    protected override XmlDictionaryWriter CreateWriter(Stream stream) => XmlDictionaryWriter.CreateBinaryWriter(stream, dictionary: null, session: null, ownsStream: false);

    protected override XmlDictionaryReader CreateReader(Stream stream) => XmlDictionaryReader.CreateBinaryReader(stream, XmlDictionaryReaderQuotas.Max);
}
