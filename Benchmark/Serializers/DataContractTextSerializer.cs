using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// DataContractSerializer writing text XML. Keeps the private [DataMember] BookShelf.Secret.
/// [DataContract(IsReference = true)] tracks objects only: shared strings are written (and read back) per use.
/// Emits XmlFormatWriter/Reader delegates per type at run time (dynamic methods).
/// </summary>
public sealed class DataContractTextSerializer : DataContractSerializerBase
{
    public override string Name => "DataContract";

    public override string Format => "XML";

    public override Capabilities Capabilities => Capabilities.PrivateMembers;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) => Write(graph, stream);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) => Read(type, stream);
}
