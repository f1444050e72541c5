using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// System.Text.Json with source-generated metadata (<see cref="BenchmarkJsonContext"/>): no reflection or
/// runtime code generation. Like the reflection mode it drops the private BookShelf.Secret.
/// </summary>
public sealed class SystemTextJsonSourceGenSerializer : Serializer
{
    private readonly ConcurrentDictionary<Type, JsonTypeInfo> _typeInfos = new();

    public override string Name => "System.Text.Json.SourceGen";

    public override string Format => "JSON";

    public override Capabilities Capabilities => Capabilities.NoRuntimeCodegen;

    protected override Type LibraryType => typeof(JsonSerializer);

    // Read from the attributes, not from the context, so the first measured call still builds the metadata.
    private static readonly HashSet<Type> s_declared = typeof(BenchmarkJsonContext).GetCustomAttributesData()
        .Where(a => a.AttributeType == typeof(JsonSerializableAttribute))
        .Select(a => a.ConstructorArguments[0].Value)
        .OfType<Type>()
        .ToHashSet();

    public override string? UnsupportedDataReason(Type dataType) =>
        s_declared.Contains(dataType) ? null : $"{dataType.Name} is not declared in BenchmarkJsonContext ([JsonSerializable])";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) =>
        JsonSerializer.Serialize(stream, graph, TypeInfo(graph.GetType()));

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream) =>
        JsonSerializer.Deserialize(stream, TypeInfo(type))
            ?? throw new InvalidDataException("System.Text.Json returned null");

    private JsonTypeInfo TypeInfo(Type type) =>
        _typeInfos.GetOrAdd(type, static t => BenchmarkJsonContext.Default.GetTypeInfo(t)
            ?? throw new NotSupportedException($"{t.Name} is not declared in BenchmarkJsonContext"));
}
