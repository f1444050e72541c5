using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>The hot methods of several runs (one serializer, operation and N) added up, in the order the rows were first met.</summary>
internal sealed class HotMethodSums
{
    private readonly Dictionary<string, Sum> _rows = new(StringComparer.Ordinal);

    internal sealed class Sum
    {
        public double ExclusiveMs { get; set; }
        public double InclusiveMs { get; set; }
        public Dictionary<(string Said, string Caller), double> CalledFrom { get; } = [];
    }

    public Sum Of(string name)
    {
        if (!_rows.TryGetValue(name, out var sum)) _rows[name] = sum = new Sum();
        return sum;
    }

    /// <summary>The rows by name; each unnamed row's callers largest first (ties by name, so the order is the same every time).</summary>
    public Dictionary<string, HotMethod> Rows() => _rows.ToDictionary(r => r.Key, r => new HotMethod(r.Key, r.Value.ExclusiveMs, r.Value.InclusiveMs)
    {
        CalledFrom = [.. r.Value.CalledFrom.OrderByDescending(c => c.Value).ThenBy(c => c.Key.Caller, StringComparer.Ordinal).ThenBy(c => c.Key.Said, StringComparer.Ordinal)
            .Select(c => new HotMethodCaller(c.Key.Said, c.Key.Caller, c.Value))],
    }, StringComparer.Ordinal);
}
