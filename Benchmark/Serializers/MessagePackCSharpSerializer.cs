using System.Runtime.CompilerServices;
using MessagePack;
using MessagePack.Resolvers;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// MessagePack-CSharp in its common attributed form: [MessagePackObject] with integer [Key]s on the data types (an
/// array per object), formatters emitted at run time by the dynamic resolver. StandardResolverAllowPrivate so the
/// private BookShelf.Secret [Key] is written like the public ones. LZ4 is MessagePack.LZ4; contractless is not measured
/// (docs/benchmark.md says why).
/// </summary>
public sealed class MessagePackCSharpSerializer : Serializer
{
    private static readonly MessagePackSerializerOptions s_options =
        MessagePackSerializerOptions.Standard.WithResolver(StandardResolverAllowPrivate.Instance);

    public override string Name => "MessagePack";

    public override string Format => "MessagePack";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.Binary;

    protected override Type LibraryType => typeof(MessagePack.MessagePackSerializer);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) =>
        MessagePack.MessagePackSerializer.Serialize(graph.GetType(), stream, graph, s_options);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) =>
        MessagePack.MessagePackSerializer.Deserialize(type, stream, s_options)
            ?? throw new InvalidDataException("MessagePack returned null");
}
