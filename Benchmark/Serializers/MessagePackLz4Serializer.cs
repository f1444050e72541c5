using System.Runtime.CompilerServices;
using MessagePack;
using MessagePack.Resolvers;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// MessagePack with LZ4 block compression (one option on the attributed form): a second row because its cost profile
/// differs where the tables show it. Measured at N=10,000 (docs/benchmark.md): half the bytes for BookShelf and
/// LargeRecord, 10 MB down to 89 KB for SharedStringShelf (the repeated title compresses away), paid for in
/// compression work on serialize and decompression on deserialize.
/// </summary>
public sealed class MessagePackLz4Serializer : Serializer
{
    private static readonly MessagePackSerializerOptions s_options = MessagePackSerializerOptions.Standard
        .WithResolver(StandardResolverAllowPrivate.Instance)
        .WithCompression(MessagePackCompression.Lz4BlockArray);

    public override string Name => "MessagePack.LZ4";

    public override string Format => "MessagePack (LZ4)";

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
