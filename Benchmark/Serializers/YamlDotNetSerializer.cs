using System.Runtime.CompilerServices;
using System.Text;
using YamlDotNet.Serialization;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// YamlDotNet with default builders: public properties only (drops the private BookShelf.Secret), no anchors for
/// strings. Pure reflection (PropertyInfo.GetValue/SetValue, Activator): it emits no serialization code of its own;
/// traced runs show only the runtime's reflection invoke stubs and one RegexOptions.Compiled regex, both of which
/// fall back to interpretation where dynamic code is unavailable.
/// </summary>
public sealed class YamlDotNetSerializer : Serializer
{
    private static readonly UTF8Encoding s_utf8 = new(encoderShouldEmitUTF8Identifier: false);

    // Built once, on first use (so the first call pays for it); both are immutable after Build() and thread-safe.
    private readonly Lazy<ISerializer> _serializer = new(() => new SerializerBuilder().Build());
    private readonly Lazy<IDeserializer> _deserializer = new(() => new DeserializerBuilder().Build());

    public override string Name => "YamlDotNet";

    public override string Format => "YAML";

    public override Capabilities Capabilities => Capabilities.NoRuntimeCodegen;

    protected override Type LibraryType => typeof(ISerializer);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var writer = new StreamWriter(stream, s_utf8, bufferSize: 4096, leaveOpen: true);
        _serializer.Value.Serialize(writer, graph, graph.GetType());
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        using var reader = new StreamReader(stream, s_utf8, detectEncodingFromByteOrderMarks: true, bufferSize: 4096, leaveOpen: true);
        return _deserializer.Value.Deserialize(reader, type) ?? throw new InvalidDataException("YamlDotNet returned null");
    }
}
