using System.Globalization;
using System.Text;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>
/// A BenchmarkDotNet case's full name as its engine events carry it (FullNameProvider.GetBenchmarkName):
/// <c>Namespace.Type.Method(arg: value, Param: value, ...)</c>, nested types as <c>Outer+Inner</c>, generic ones as
/// <c>Type&lt;int, string&gt;</c>, strings in quotes with escapes, arrays as <c>[1, 2, ...]</c>.
/// </summary>
internal sealed record BdnBenchmarkName(string Type, string Method, IReadOnlyList<(string Name, string Value)> Parameters)
{
    /// <summary>The parameter that becomes the tables' N (object count) when it holds a whole number.</summary>
    public const string ObjectsParameter = "N";

    public static BdnBenchmarkName Parse(string fullName)
    {
        var open = fullName.IndexOf('(', StringComparison.Ordinal);
        var prefix = open > 0 && fullName.EndsWith(')') ? fullName[..open] : fullName;
        var parameters = open > 0 && fullName.EndsWith(')') ? SplitParameters(fullName[(open + 1)..^1]) : [];
        var segments = SplitTopLevel(prefix, '.');
        var method = segments[^1];
        var type = segments.Count > 1 ? segments[^2] : "";
        return new BdnBenchmarkName(type, method, parameters);
    }

    /// <summary>
    /// The run identity the tables, findings and diff use: one table per benchmark type (the operation), one row per
    /// method with its parameters (the serializer column), N from a whole-number parameter named N (0 when there is
    /// none: the pilot's operation count changes from launch to launch and would make two traces' rows differ).
    /// </summary>
    public (string Serializer, string Operation, int Objects) Identity()
    {
        var at = Parameters.ToList().FindIndex(p => p.Name.Equals(ObjectsParameter, StringComparison.OrdinalIgnoreCase));
        var objects = at >= 0 && int.TryParse(Parameters[at].Value, NumberStyles.None, CultureInfo.InvariantCulture, out var v) ? v : (int?)null;
        var rest = objects is null ? Parameters : Parameters.Where((_, i) => i != at).ToList();
        var serializer = rest.Count == 0 ? Method : $"{Method}({string.Join(", ", rest.Select(p => $"{p.Name}: {p.Value}"))})";
        return (serializer, Type.Length == 0 ? Method : Type, objects ?? 0);
    }

    public RunKey Key(int run)
    {
        var (serializer, operation, objects) = Identity();
        return new RunKey(serializer, operation, objects, run);
    }

    private static List<(string Name, string Value)> SplitParameters(string list)
    {
        var result = new List<(string, string)>();
        foreach (var item in SplitTopLevel(list, ','))
        {
            var text = item.Trim();
            if (text.Length == 0) continue;
            var colon = text.IndexOf(": ", StringComparison.Ordinal);
            result.Add(colon > 0 ? (text[..colon], text[(colon + 2)..]) : ("", text));
        }
        return result;
    }

    /// <summary>Splits at <paramref name="separator"/> outside quotes and brackets (a string value may hold commas, a generic type dots).</summary>
    private static List<string> SplitTopLevel(string text, char separator)
    {
        var parts = new List<string>();
        var current = new StringBuilder();
        var depth = 0;
        char? quote = null;
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (quote is { } q)
            {
                current.Append(c);
                if (c == '\\' && i + 1 < text.Length) current.Append(text[++i]);
                else if (c == q) quote = null;
                continue;
            }
            if (c is '"' or '\'') quote = c;
            else if (c is '(' or '[' or '<' or '{') depth++;
            else if (c is ')' or ']' or '>' or '}') depth = Math.Max(0, depth - 1);
            else if (c == separator && depth == 0)
            {
                parts.Add(current.ToString());
                current.Clear();
                continue;
            }
            current.Append(c);
        }
        parts.Add(current.ToString());
        return parts;
    }
}
