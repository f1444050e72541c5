using System.Text;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>
/// Writes markup that is both valid HTML5 and well-formed XML (every element closed, void elements self-closed,
/// only XML's predefined entities), so the report can be checked with an XML reader as well as a browser.
/// Text and attribute values are always escaped; only the report's own assets go in raw.
/// </summary>
internal sealed class HtmlWriter
{
    private static readonly HashSet<string> VoidElements = new(StringComparer.Ordinal) { "br", "hr", "meta", "img", "col", "input", "link", "wbr" };
    private readonly StringBuilder _sb = new();
    private readonly Stack<string> _open = new();

    public HtmlWriter Open(string tag, params (string Name, string? Value)[] attributes)
    {
        if (VoidElements.Contains(tag)) throw new ArgumentException($"<{tag}> is a void element: use Void", nameof(tag));
        WriteStartTag(tag, attributes);
        _sb.Append('>');
        _open.Push(tag);
        return this;
    }

    public HtmlWriter Close()
    {
        _sb.Append("</").Append(_open.Pop()).Append('>');
        return this;
    }

    /// <summary>Opens an element and closes it when the returned scope is disposed.</summary>
    public Scope Block(string tag, params (string Name, string? Value)[] attributes)
    {
        Open(tag, attributes);
        return new Scope(this);
    }

    public HtmlWriter Element(string tag, string text, params (string Name, string? Value)[] attributes) =>
        Open(tag, attributes).Text(text).Close();

    public HtmlWriter Void(string tag, params (string Name, string? Value)[] attributes)
    {
        if (!VoidElements.Contains(tag)) throw new ArgumentException($"<{tag}> is not a void element", nameof(tag));
        WriteStartTag(tag, attributes);
        _sb.Append("/>");
        return this;
    }

    public HtmlWriter Text(string text)
    {
        _sb.Append(Escape(text));
        return this;
    }

    public HtmlWriter Line()
    {
        _sb.Append('\n');
        return this;
    }

    /// <summary>
    /// Script or style text, wrapped in a CDATA section hidden behind comments: an HTML parser sees the comments,
    /// an XML parser sees the CDATA, and neither parses the code's &lt; and &amp;.
    /// </summary>
    public HtmlWriter RawCode(string tag, string code, params (string Name, string? Value)[] attributes)
    {
        if (code.Contains("]]>", StringComparison.Ordinal) || code.Contains("</" + tag, StringComparison.OrdinalIgnoreCase))
            throw new ArgumentException($"this {tag} text cannot be inlined safely (it contains ]]> or </{tag})", nameof(code));
        var (open, close) = tag == "style" ? ("/*<![CDATA[*/", "/*]]>*/") : ("//<![CDATA[", "//]]>");
        WriteStartTag(tag, attributes);
        _sb.Append('>').Append(open).Append('\n').Append(code).Append('\n').Append(close).Append("</").Append(tag).Append('>');
        return this;
    }

    /// <summary>Text that is known to contain no &lt; or &amp; (e.g. JSON written with System.Text.Json's default escaping).</summary>
    public HtmlWriter RawText(string text)
    {
        if (text.AsSpan().IndexOfAny("<&") >= 0) throw new ArgumentException("raw text must not contain < or &", nameof(text));
        _sb.Append(text);
        return this;
    }

    public HtmlWriter Doctype()
    {
        _sb.Append("<!DOCTYPE html>\n");
        return this;
    }

    /// <summary>Appends what another writer produced (already escaped and balanced).</summary>
    public HtmlWriter RawMarkup(HtmlWriter other)
    {
        _sb.Append(other.ToString());
        return this;
    }

    public override string ToString()
    {
        if (_open.Count > 0) throw new InvalidOperationException($"unclosed <{_open.Peek()}>");
        return _sb.ToString();
    }

    public static string Escape(string text)
    {
        var sb = new StringBuilder(text.Length + 16);
        foreach (var c in text)
        {
            switch (c)
            {
                case '&': sb.Append("&amp;"); break;
                case '<': sb.Append("&lt;"); break;
                case '>': sb.Append("&gt;"); break;
                case '"': sb.Append("&quot;"); break;
                // Control characters are not allowed in XML 1.0 even as references; a method name never needs them.
                case < ' ' and not ('\t' or '\n' or '\r'): sb.Append('?'); break;
                default: sb.Append(c); break;
            }
        }
        return sb.ToString();
    }

    private void WriteStartTag(string tag, (string Name, string? Value)[] attributes)
    {
        _sb.Append('<').Append(tag);
        foreach (var (name, value) in attributes)
        {
            if (value is null) continue;
            _sb.Append(' ').Append(name).Append("=\"").Append(Escape(value)).Append('"');
        }
    }

    public readonly struct Scope(HtmlWriter writer) : IDisposable
    {
        public void Dispose() => writer.Close();
    }
}
