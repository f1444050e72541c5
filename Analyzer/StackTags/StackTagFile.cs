using System.Globalization;
using System.Xml;
using System.Xml.Linq;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>One <c>Entrypoint</c> of a WPA stack tags file, with the tag path and priority it resolved to.</summary>
/// <param name="TagPath">Names of the enclosing <c>Tag</c> elements joined with <c>\</c>.</param>
/// <param name="ModulePattern">Wildcard pattern (<c>*</c>, <c>?</c>); <c>*</c> when the attribute is absent.</param>
/// <param name="MethodPattern">Wildcard pattern (<c>*</c>, <c>?</c>); <c>*</c> when the attribute is absent.</param>
/// <param name="Priority">The nearest <c>Priority</c> attribute on this tag or an ancestor; 0 if none.</param>
/// <param name="Line">1-based line of the <c>Entrypoint</c> element, for diagnostics.</param>
internal sealed record StackTagRule(string TagPath, string ModulePattern, string MethodPattern, int Priority, int Line)
{
    /// <summary>The file the entrypoint came from (its <see cref="StackTagFile.SourceName"/>): combined files keep it per rule.</summary>
    public string Source { get; init; } = "";
}

/// <summary>
/// A WPA <c>.stacktags</c> file: the same XML a Windows user opens in WPA, so one file drives both tools.
/// Only <c>Tag</c> and <c>Entrypoint</c> carry meaning here; anything else (HintTag, comments, attributes WPA
/// added in later versions) is skipped so that real-world files load.
/// </summary>
internal sealed class StackTagFile
{
    private const string TagElement = "Tag";
    private const string EntrypointElement = "Entrypoint";

    private StackTagFile(string sourceName, IReadOnlyList<StackTagRule> rules, IReadOnlyList<string> tagPaths, IReadOnlyList<string>? sources = null)
    {
        SourceName = sourceName;
        Rules = rules;
        TagPaths = tagPaths;
        Sources = sources ?? [sourceName];
    }

    /// <summary>The path or name the file was loaded from; prefixes every error message. Combined files join theirs with " + ".</summary>
    public string SourceName { get; }

    /// <summary>The files this one was read from, in order: one, or several for <see cref="Combine"/>.</summary>
    public IReadOnlyList<string> Sources { get; }

    /// <summary>Every entrypoint in document order. Order matters: it breaks ties between rules of equal priority.</summary>
    public IReadOnlyList<StackTagRule> Rules { get; }

    /// <summary>Distinct tag paths that own at least one entrypoint, in order of first appearance: the possible classifications.</summary>
    public IReadOnlyList<string> TagPaths { get; }

    public static StackTagFile Load(string path)
    {
        Stream stream;
        try
        {
            stream = File.OpenRead(path);
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            throw new UsageException($"stack tags file '{path}' not found");
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new BadInputException($"{path}: cannot read stack tags file: {ex.Message}", ex);
        }

        // A stream rather than File.ReadAllText: the XML declaration, not a guess, decides the encoding.
        using (stream)
        {
            using (var scan = XmlReader.Create(stream, ReaderSettings())) CheckDepth(scan, path);
            stream.Position = 0;
            using var reader = XmlReader.Create(stream, ReaderSettings());
            return Parse(reader, path);
        }
    }

    /// <summary>
    /// Several files read as one tree, as if their tags sat side by side under one root: a tag path that appears in
    /// two files is one tag, and each stack still gets one tag by priority, then depth. Rules keep their files'
    /// order, so on a tie of priority on the same frame the earlier file wins: pass the built-in tags first.
    /// </summary>
    public static StackTagFile Combine(IReadOnlyList<StackTagFile> files)
    {
        ArgumentNullException.ThrowIfNull(files);
        if (files.Count == 0) throw new ArgumentException("no stack tags files to combine", nameof(files));
        if (files.Count == 1) return files[0];
        var rules = files.SelectMany(f => f.Rules).ToList();
        var tagPaths = rules.Select(r => r.TagPath).Distinct(StringComparer.Ordinal).ToList();
        var sources = files.SelectMany(f => f.Sources).ToList();
        return new StackTagFile(string.Join(" + ", sources), rules, tagPaths, sources);
    }

    public static StackTagFile Parse(string xml, string sourceName)
    {
        ArgumentNullException.ThrowIfNull(xml);
        using (var scan = XmlReader.Create(new StringReader(xml), ReaderSettings())) CheckDepth(scan, sourceName);
        using var reader = XmlReader.Create(new StringReader(xml), ReaderSettings());
        return Parse(reader, sourceName);
    }

    /// <summary>Real files nest a handful of levels. A deeper one is refused before loading: XDocument takes quadratic time in the depth, and the tag walk would overflow the stack.</summary>
    private const int MaxDepth = 256;

    private static void CheckDepth(XmlReader reader, string sourceName)
    {
        try
        {
            while (reader.Read())
                if (reader.Depth > MaxDepth) throw Error(sourceName, ((IXmlLineInfo)reader).LineNumber, $"elements nested more than {MaxDepth} deep");
        }
        catch (XmlException) { } // malformed XML is reported by the parse itself, with its line
    }

    private static XmlReaderSettings ReaderSettings() => new()
    {
        // Stack tags never need a DTD; ignoring one keeps entity expansion and external fetches off the table.
        DtdProcessing = DtdProcessing.Ignore,
        XmlResolver = null,
        IgnoreComments = true,
        IgnoreProcessingInstructions = true,
    };

    private static StackTagFile Parse(XmlReader reader, string sourceName)
    {
        XDocument document;
        try
        {
            document = XDocument.Load(reader, LoadOptions.SetLineInfo);
        }
        catch (XmlException ex)
        {
            throw new BadInputException($"{sourceName}({ex.LineNumber}): malformed XML: {ex.Message}", ex);
        }

        var root = document.Root ?? throw Error(sourceName, 1, "no root element");
        if (root.Name.LocalName != TagElement)
            throw Error(sourceName, LineOf(root), $"root element is <{root.Name.LocalName}>, expected <{TagElement}>");

        var rules = new List<StackTagRule>();
        // WPA's own files use an unnamed root as a container; a named root is kept as the first level.
        var rootName = TagName(root, sourceName);
        Walk(root, rootName, ReadPriority(root, 0, sourceName), rules, sourceName);

        var tagPaths = rules.Select(r => r.TagPath).Distinct(StringComparer.Ordinal).ToList();
        return new StackTagFile(sourceName, rules, tagPaths);
    }

    private static void Walk(XElement tag, string path, int priority, List<StackTagRule> rules, string sourceName)
    {
        foreach (var child in tag.Elements())
        {
            switch (child.Name.LocalName)
            {
                case TagElement:
                    var name = TagName(child, sourceName);
                    var childPath = name.Length == 0 ? path : path.Length == 0 ? name : path + "\\" + name;
                    Walk(child, childPath, ReadPriority(child, priority, sourceName), rules, sourceName);
                    break;

                case EntrypointElement:
                    if (path.Length == 0)
                        throw Error(sourceName, LineOf(child), $"<{EntrypointElement}> outside a named <{TagElement}>");
                    rules.Add(new StackTagRule(
                        path,
                        Pattern(child, "Module"),
                        Pattern(child, "Method"),
                        priority,
                        LineOf(child)) { Source = sourceName });
                    break;

                default:
                    // HintTag and anything newer: WPA-only presentation hints, never a classification.
                    break;
            }
        }
    }

    /// <summary>Real names are a few words. A longer one is refused: every table would be padded to its width.</summary>
    private const int MaxNameLength = 256;

    private static string TagName(XElement tag, string sourceName)
    {
        // Surrounding backslashes would produce empty levels like "A\\B" once joined.
        var name = ((string?)tag.Attribute("Name") ?? "").Trim().Trim('\\');
        return name.Length <= MaxNameLength ? name
            : throw Error(sourceName, LineOf(tag), $"a tag name of {name.Length} characters (at most {MaxNameLength})");
    }

    private static string Pattern(XElement entrypoint, string attribute)
    {
        var value = ((string?)entrypoint.Attribute(attribute))?.Trim();
        // An empty pattern could only match an empty name, which no one means; read it like an absent one.
        return string.IsNullOrEmpty(value) ? "*" : value;
    }

    private static int ReadPriority(XElement tag, int inherited, string sourceName)
    {
        var attribute = tag.Attribute("Priority");
        if (attribute is null) return inherited;
        if (int.TryParse(attribute.Value.Trim(), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var priority))
            return priority;
        throw Error(sourceName, LineOf(attribute), $"Priority=\"{attribute.Value}\" is not an integer");
    }

    private static int LineOf(XObject node) =>
        node is IXmlLineInfo info && info.HasLineInfo() ? info.LineNumber : 0;

    private static BadInputException Error(string sourceName, int line, string what) =>
        new($"{sourceName}({line}): {what}");
}
