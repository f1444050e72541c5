using System.Runtime.CompilerServices;
using System.Text.Json;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// System.Text.Json, reflection-based metadata with default options. It ignores [DataMember], so the private
/// BookShelf.Secret is dropped; strings are not reference-tracked. Getters/setters are emitted at run time.
/// </summary>
public sealed class SystemTextJsonSerializer : Serializer
{
    // Default options, but an own instance: it caches per-type metadata for the life of this serializer.
    private readonly JsonSerializerOptions _options = new();

    public override string Name => "System.Text.Json";

    public override string Format => "JSON";

    public override Capabilities Capabilities => Capabilities.None;

    protected override Type LibraryType => typeof(JsonSerializer);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) =>
        JsonSerializer.Serialize(stream, graph, graph.GetType(), _options);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) =>
        JsonSerializer.Deserialize(stream, type, _options)
            ?? throw new InvalidDataException("System.Text.Json returned null");
}
