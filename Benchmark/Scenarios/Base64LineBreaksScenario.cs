using System.Text;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;

namespace EtwSerializerProfiler.Benchmark.Scenarios;

/// <summary>
/// Seed 003 (WCF, 2010): DataContractSerializer read base64 byte[] content ~1000x slower when the producer wrapped
/// it MIME-style (RFC 2045) every 73 characters, because XmlBaseReader.ReadBytes decodes optimistically, lets
/// Base64Encoding throw FormatException on the first whitespace character, catches it, strips the whitespace and
/// retries, once per chunk. This scenario wraps every Book.Payload element of the XML the same way.
/// On .NET 10 a bare line break no longer throws (ReadBytes skips a chunk that is a single '\n'), so the seed's
/// exact shape is kept as base64-linebreaks and the shape that still takes the exception path, a line break
/// followed by indentation (what pretty-printing SOAP stacks emit), is base64-indented-linebreaks; docs/findings.md
/// has the measurements of both.
/// </summary>
public sealed partial class Base64LineBreaksScenario(string name, string separator, string description) : InputScenario
{
    /// <summary>RFC 2045 allows at most 76; the seed's producer broke every 73 characters.</summary>
    public const int LineLength = 73;

    public override string Name => name;

    public override string Description => description;

    public override string? InvalidOptionsReason(BenchmarkOptions options) =>
        options.Data != DataKind.BookShelf || options.PayloadBytes < LineLength
            ? $"--scenario {Name} wraps the base64 of Book.Payload: it needs --data bookshelf and --payload-bytes {LineLength} or more"
            : null;

    // Only text XML carries base64 as characters; binary XML and the other formats store byte[] as raw bytes.
    public override string? UnsupportedReason(Serializer serializer) =>
        serializer.Format == "XML" && !serializer.Capabilities.HasFlag(Capabilities.Binary)
            ? null
            : $"--scenario {Name} rewrites base64 text in XML; {serializer.Name} writes {serializer.Format}";

    public override byte[] Rewrite(byte[] serialized)
    {
        var rewritten = 0;
        var xml = PayloadElement().Replace(Encoding.UTF8.GetString(serialized), m =>
        {
            rewritten++;
            return m.Groups["open"].Value + Wrap(m.Groups["base64"].Value) + m.Groups["close"].Value;
        });
        if (rewritten == 0) throw new InvalidOperationException($"--scenario {Name}: no base64 <Payload> element in the serialized XML");
        return Encoding.UTF8.GetBytes(xml);
    }

    private string Wrap(string base64)
    {
        var sb = new StringBuilder(base64.Length + (base64.Length / LineLength + 1) * separator.Length);
        for (var i = 0; i < base64.Length; i += LineLength)
        {
            if (i > 0) sb.Append(separator);
            sb.Append(base64, i, Math.Min(LineLength, base64.Length - i));
        }
        return sb.ToString();
    }

    [GeneratedRegex("(?<open><Payload>)(?<base64>[A-Za-z0-9+/=]+)(?<close></Payload>)", RegexOptions.CultureInvariant)]
    private static partial Regex PayloadElement();
}
