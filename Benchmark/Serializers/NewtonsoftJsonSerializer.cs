using System.Runtime.CompilerServices;
using System.Text;
using Newtonsoft.Json;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// Newtonsoft.Json with default settings. It honours [DataContract]/[DataMember], so the private
/// BookShelf.Secret (a [DataMember]) round-trips. Strings are never reference-tracked. Member accessors and
/// constructors are emitted as dynamic methods at run time.
/// </summary>
public sealed class NewtonsoftJsonSerializer : Serializer
{
    private static readonly UTF8Encoding s_utf8 = new(encoderShouldEmitUTF8Identifier: false);

    // One instance for all calls: it caches contracts internally and is safe to share between threads.
    // Created on first use, not when the catalog instantiates every serializer, so the first call pays for it.
    private readonly Lazy<JsonSerializer> _serializer = new(JsonSerializer.CreateDefault);

    public override string Name => "Newtonsoft.Json";

    public override string Format => "JSON";

    public override Capabilities Capabilities => Capabilities.PrivateMembers;

    protected override Type LibraryType => typeof(JsonSerializer);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var writer = new StreamWriter(stream, s_utf8, bufferSize: 4096, leaveOpen: true);
        using var json = new JsonTextWriter(writer);
        _serializer.Value.Serialize(json, graph);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        using var reader = new StreamReader(stream, s_utf8, detectEncodingFromByteOrderMarks: true, bufferSize: 4096, leaveOpen: true);
        using var json = new JsonTextReader(reader);
        return _serializer.Value.Deserialize(json, type)
            ?? throw new InvalidDataException("Newtonsoft.Json returned null");
    }
}
