using System.Runtime.CompilerServices;
using SsJson = ServiceStack.Text.JsonSerializer;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// ServiceStack.Text JSON (stands in for Jil as an emit-based JSON serializer). It honours [DataContract]/[DataMember],
/// including the private BookShelf.Secret. Default JsConfig: DateTime is written as \/Date(ms)\/, so sub-millisecond
/// ticks are lost and Unspecified comes back as Local (UTC survives); an empty byte[] comes back as null. The benchmark
/// data (whole-second UTC dates, null or non-empty payloads) is not affected. Accessors are emitted at run time.
/// </summary>
public sealed class ServiceStackTextSerializer : Serializer
{
    public override string Name => "ServiceStack.Text";

    public override string Format => "JSON";

    public override Capabilities Capabilities => Capabilities.PrivateMembers;

    protected override Type LibraryType => typeof(SsJson);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) =>
        SsJson.SerializeToStream(graph, graph.GetType(), stream);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) =>
        SsJson.DeserializeFromStream(type, stream) ?? throw new InvalidDataException("ServiceStack.Text returned null");
}
