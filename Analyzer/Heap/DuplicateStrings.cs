namespace EtwSerializerProfiler.Analyzer.Heap;

/// <summary>
/// Same content, different instances: what a serializer without object identity does to one shared string. The
/// first instance of each value is needed; every further one is waste (it could have been a reference).
/// </summary>
internal static class DuplicateStrings
{
    public const int PreviewChars = 40;

    public static List<DuplicateString> Find(string graph, IEnumerable<StringInstance> strings) =>
        strings.GroupBy(s => s.Value, StringComparer.Ordinal)
            .Where(g => g.Count() > 1)
            .Select(g =>
            {
                var bytes = g.Sum(s => s.Size);
                return new DuplicateString(graph, g.Key.Length, g.Count(), bytes, bytes - g.First().Size, Preview(g.Key));
            })
            .OrderByDescending(d => d.WastedBytes)
            .ThenBy(d => d.Preview, StringComparer.Ordinal)
            .ToList();

    public static long WastedBytes(IEnumerable<StringInstance> strings) => Find("", strings).Sum(d => d.WastedBytes);

    /// <summary>Printable and short: control characters escaped, long values cut with their length shown elsewhere.</summary>
    public static string Preview(string value)
    {
        var cut = value.Length > PreviewChars ? value[..PreviewChars] + "..." : value;
        return string.Concat(cut.Select(c => char.IsControl(c) ? $"\\u{(int)c:x4}" : c.ToString()));
    }
}
