using System.Runtime.CompilerServices;
using ProtoBuf.Meta;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// protobuf-net with the contracts on the data types ([ProtoContract]/[ProtoMember], the library's recommendation for
/// types you own): the model reads them on first use and compiles a serializer per type with Reflection.Emit (its
/// default auto-compile). Field numbers are the [DataMember] orders, so BookShelf and SharedStringShelf come out
/// byte for byte as Google.Protobuf's hand-written codec writes them. Private [ProtoMember]s (BookShelf.Secret)
/// round-trip; references are not kept (AsReference is legacy in v3).
/// </summary>
public sealed class ProtobufNetSerializer : Serializer
{
    // Its own model rather than RuntimeTypeModel.Default: IncludeDateTimeKind keeps LargeRecord's DateTimeKind.Utc,
    // which protobuf-net's bcl.DateTime otherwise drops. Built on first use, so the first call pays for it.
    private readonly Lazy<RuntimeTypeModel> _model = new(() =>
    {
        var model = RuntimeTypeModel.Create("EtwSerializerProfiler");
        model.IncludeDateTimeKind = true;
        return model;
    });

    public override string Name => "protobuf-net";

    public override string Format => "Protobuf";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.Binary;

    // ProtoBuf.Serializer: its namespace, ProtoBuf, is the one all of protobuf-net(.Core) lives under (the stack tags' library pattern).
    protected override Type LibraryType => typeof(ProtoBuf.Serializer);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) => _model.Value.Serialize(stream, graph);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) =>
        _model.Value.Deserialize(type, stream) ?? throw new InvalidDataException("protobuf-net returned null");
}
