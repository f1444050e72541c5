using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// protobuf-net's output checked against a codec it shares no code with: the [ProtoMember] numbers are the
/// [DataMember] orders, so for BookShelf and SharedStringShelf it must write what Google.Protobuf's hand-written
/// codec writes, byte for byte (LargeRecord differs by design: bcl.Decimal/DateTime/Guid vs fixed 16-byte fields).
/// </summary>
public sealed class ProtobufNetWireTests
{
    [Theory]
    [InlineData(DataKind.BookShelf, 0)]
    [InlineData(DataKind.BookShelf, 16)]
    [InlineData(DataKind.SharedStrings, 0)]
    public void ProtobufNet_WritesGoogleProtobufsBytes(DataKind kind, int payloadBytes)
    {
        var data = DataFactory.Create(kind, 200, payloadBytes);

        var protobufNet = Bytes(SerializerCatalog.All.Single(s => s.Name == "protobuf-net"), data);
        var google = Bytes(SerializerCatalog.All.Single(s => s.Name == "Google.Protobuf"), data);

        Assert.Equal(google, protobufNet);
    }

    private static byte[] Bytes(Serializer serializer, object data)
    {
        using var stream = new MemoryStream();
        serializer.Serialize(data, stream);
        return stream.ToArray();
    }
}
