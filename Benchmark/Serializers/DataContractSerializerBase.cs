using System.Collections.Concurrent;
using System.Runtime.Serialization;
using System.Xml;
using Dcs = System.Runtime.Serialization.DataContractSerializer;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// What the DataContractSerializer variants share: one serializer per type (created on first use, so the first
/// call still pays for it) and the read/write calls. Variants choose the XML encoding and settings; each keeps its
/// own NoInlining Serialize/Deserialize so stack tags attribute samples to the variant.
/// </summary>
public abstract class DataContractSerializerBase : Serializer
{
    private readonly ConcurrentDictionary<Type, Dcs> _serializers = new();

    protected override Type LibraryType => typeof(Dcs);

    protected virtual DataContractSerializerSettings Settings => new();

    /// <summary>Text XML unless a variant says otherwise (the binary one does).</summary>
    protected virtual XmlDictionaryWriter CreateWriter(Stream stream) => XmlDictionaryWriter.CreateTextWriter(stream, System.Text.Encoding.UTF8, ownsStream: false);

    protected virtual XmlDictionaryReader CreateReader(Stream stream) => XmlDictionaryReader.CreateTextReader(stream, XmlDictionaryReaderQuotas.Max);

    protected void Write(object graph, Stream stream)
    {
        using var writer = CreateWriter(stream);
        For(graph.GetType()).WriteObject(writer, graph);
        writer.Flush();
    }

    // The reader is not disposed: closing an XmlDictionaryReader closes the caller's stream.
    protected object Read(Type type, Stream stream) =>
        For(type).ReadObject(CreateReader(stream)) ?? throw new InvalidDataException("DataContractSerializer returned null");

    private Dcs For(Type type) => _serializers.GetOrAdd(type, t => new Dcs(t, Settings));
}
