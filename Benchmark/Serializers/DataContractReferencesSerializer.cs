using System.Runtime.CompilerServices;
using System.Runtime.Serialization;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// DataContractSerializer with PreserveObjectReferences: every object and string is written once and referenced
/// by id afterwards, so N books sharing one title come back sharing one string (the only serializer here that
/// keeps object identity for strings). Larger XML per object and an id table are the price.
/// </summary>
public sealed class DataContractReferencesSerializer : DataContractSerializerBase
{
    public override string Name => "DataContract.References";

    public override string Format => "XML (object references)";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.SharedReferences;

    protected override DataContractSerializerSettings Settings => new() { PreserveObjectReferences = true };

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) => Write(graph, stream);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) => Read(type, stream);
}
