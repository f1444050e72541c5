using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// CPU by library over a trace without runs: by module ("System.Text.Json", "libcoreclr") and by namespace
/// ("System.Text.Json.Serialization"). Inclusive: a sample counts once for each module or namespace on its stack, so
/// a library's row holds the time spent in it and in what it called. Exclusive: the sample's leaf alone (a native
/// leaf is its module's, "(native) libcoreclr", in the namespace list), so the exclusive column sums to the CPU.
/// Weights are added per distinct stack (one frames array per named stack, <see cref="FrameArrays"/>) and split into
/// libraries once, when read.
/// </summary>
internal sealed class LibraryTable
{
    private readonly Dictionary<StackFrame[], double> _weights = new(ReferenceEqualityComparer.Instance);

    public void Add(StackFrame[] framesLeafFirst, double weight) =>
        _weights[framesLeafFirst] = _weights.GetValueOrDefault(framesLeafFirst) + weight;

    /// <summary>Every weight times <paramref name="factor"/> (a thread's samples scaled to its precise on-CPU time).</summary>
    public void Scale(double factor)
    {
        foreach (var stack in _weights.Keys.ToList()) _weights[stack] *= factor;
    }

    /// <summary>This table's weights added into per-module and per-namespace sums.</summary>
    public void AddTo(Dictionary<string, (double Inclusive, double Exclusive)> modules, Dictionary<string, (double Inclusive, double Exclusive)> namespaces)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (var (frames, weight) in _weights)
        {
            if (frames.Length == 0) continue;
            seen.Clear();
            foreach (var f in frames)
                if (f.Module != "?" && seen.Add(f.ModuleName)) AddInclusive(modules, f.ModuleName, weight);
            seen.Clear();
            foreach (var f in frames)
                if (NamespaceOf(f) is { } ns && seen.Add(ns)) AddInclusive(namespaces, ns, weight);
            var leaf = frames[0];
            AddExclusive(modules, leaf.Module == "?" ? "?" : leaf.ModuleName, weight);
            AddExclusive(namespaces, NamespaceOf(leaf) ?? $"(native) {(leaf.Module == "?" ? "?" : leaf.ModuleName)}", weight);
        }
    }

    /// <summary>The sums as rows, most inclusive time first.</summary>
    public static IReadOnlyList<LibraryCpu> Rows(Dictionary<string, (double Inclusive, double Exclusive)> sums) =>
        [.. sums.OrderByDescending(x => x.Value.Inclusive).ThenBy(x => x.Key, StringComparer.Ordinal).Select(x => new LibraryCpu(x.Key, x.Value.Inclusive, x.Value.Exclusive))];

    private static void AddInclusive(Dictionary<string, (double Inclusive, double Exclusive)> sums, string key, double weight)
    {
        var (inc, ex) = sums.GetValueOrDefault(key);
        sums[key] = (inc + weight, ex);
    }

    private static void AddExclusive(Dictionary<string, (double Inclusive, double Exclusive)> sums, string key, double weight)
    {
        var (inc, ex) = sums.GetValueOrDefault(key);
        sums[key] = (inc, ex + weight);
    }

    /// <summary>
    /// The namespace of a managed frame ("System.Text.Json" of "System.Text.Json.JsonSerializer.Serialize"; generic
    /// arguments and compiler-made names taken out first); "(no namespace)" for a type outside any; null for native
    /// code and frames without a name.
    /// </summary>
    public static string? NamespaceOf(StackFrame frame)
    {
        if (frame.Method is "" or StackFrame.Unresolved || HotMethodTable.IsNative(frame.Module)) return null;
        var name = WithoutBrackets(frame.MethodName);
        var parts = name.Split('.', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length < 2) return null;
        return parts.Length == 2 ? "(no namespace)" : string.Join('.', parts[..^2]);
    }

    /// <summary>"List`1[System.__Canon].Add" -> "List`1.Add", "Outer+&lt;&gt;c.&lt;Run&gt;b__0" -> "Outer+c.b__0": dots inside brackets are not namespace dots.</summary>
    private static string WithoutBrackets(string name)
    {
        if (name.IndexOfAny(['[', '<']) < 0) return name;
        var text = new System.Text.StringBuilder(name.Length);
        var depth = 0;
        foreach (var c in name)
        {
            if (c is '[' or '<') depth++;
            else if (c is ']' or '>') depth = Math.Max(0, depth - 1);
            else if (depth == 0) text.Append(c);
        }
        return text.ToString();
    }
}
