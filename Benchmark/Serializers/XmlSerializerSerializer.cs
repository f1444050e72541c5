using System.Collections;
using System.Collections.Concurrent;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using System.Xml;
using Xs = System.Xml.Serialization.XmlSerializer;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// System.Xml.Serialization.XmlSerializer: public read/write members only (BookShelf.Secret is dropped), no
/// object identity, and no IDictionary members (LargeRecord.Counters), which makes LargeRecordList unsupported.
/// Generates a serialization assembly (Microsoft.GeneratedCode) per type at run time.
/// </summary>
public sealed class XmlSerializerSerializer : Serializer
{
    private static readonly XmlWriterSettings s_writerSettings = new()
    {
        Encoding = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false),
        Indent = false,
        CloseOutput = false,
    };

    private static readonly XmlReaderSettings s_readerSettings = new() { CloseInput = false };

    private readonly ConcurrentDictionary<Type, Xs> _serializers = new();
    private readonly ConcurrentDictionary<Type, string?> _unsupported = new();

    public override string Name => "XmlSerializer";

    public override string Format => "XML";

    public override Capabilities Capabilities => Capabilities.None;

    protected override Type LibraryType => typeof(Xs);

    /// <summary>
    /// Found by walking public members, not by constructing an XmlSerializer (that would pay the first-use
    /// cost outside the measured first call). The constructor would throw InvalidOperationException for these.
    /// </summary>
    public override string? UnsupportedDataReason(Type dataType) => _unsupported.GetOrAdd(dataType, static t =>
    {
        var member = FindDictionaryMember(t, []);
        return member is null
            ? null
            : $"XmlSerializer cannot serialize {member} because it implements IDictionary";
    });

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var writer = XmlWriter.Create(stream, s_writerSettings);
        For(graph.GetType()).Serialize(writer, graph);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        using var reader = XmlReader.Create(stream, s_readerSettings);
        return For(type).Deserialize(reader) ?? throw new InvalidDataException("XmlSerializer returned null");
    }

    private Xs For(Type type) => _serializers.GetOrAdd(type, static t => new Xs(t));

    private static string? FindDictionaryMember(Type type, HashSet<Type> seen)
    {
        if (type.IsPrimitive || type == typeof(string) || !seen.Add(type)) return null;
        foreach (var p in type.GetProperties(BindingFlags.Instance | BindingFlags.Public))
        {
            if (p.GetIndexParameters().Length != 0) continue;
            var t = p.PropertyType;
            if (typeof(IDictionary).IsAssignableFrom(t)) return $"member {type.Name}.{p.Name} of type {Pretty(t)}";
            if (t.IsArray && FindDictionaryMember(t.GetElementType()!, seen) is { } inArray) return inArray;
            if (t.IsGenericType)
            {
                foreach (var arg in t.GetGenericArguments())
                {
                    if (FindDictionaryMember(arg, seen) is { } inArg) return inArg;
                }
            }
            if (FindDictionaryMember(t, seen) is { } nested) return nested;
        }
        return null;
    }

    private static string Pretty(Type t) => t.IsGenericType
        ? $"{t.Name[..t.Name.IndexOf('`', StringComparison.Ordinal)]}<{string.Join(", ", t.GetGenericArguments().Select(Pretty))}>"
        : t.Name;
}
