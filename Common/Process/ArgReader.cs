using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// A deliberately small option parser: `--name value`, `--name=value`, `--flag`, and everything after `--` kept
/// verbatim. Unknown options are errors that list the known ones, so typos never silently change a measurement.
/// </summary>
public sealed class ArgReader
{
    private readonly Dictionary<string, string?> _values = new(StringComparer.OrdinalIgnoreCase);
    private readonly Dictionary<string, List<string?>> _allValues = new(StringComparer.OrdinalIgnoreCase);
    private readonly HashSet<string> _consumed = new(StringComparer.OrdinalIgnoreCase);
    private readonly HashSet<string> _flags;

    public IReadOnlyList<string> Positional { get; }
    public IReadOnlyList<string> AfterDoubleDash { get; }
    public IReadOnlyList<string> Raw { get; }

    /// <param name="flags">Options that take no value; matched case-insensitively. A collection, not a set type, because
    /// .NET Framework (the benchmark's net472 build) has no IReadOnlySet.</param>
    public ArgReader(IReadOnlyList<string> args, IReadOnlyCollection<string> flags)
    {
        Raw = args;
        _flags = new HashSet<string>(flags, StringComparer.OrdinalIgnoreCase);
        var positional = new List<string>();
        var rest = new List<string>();
        for (var i = 0; i < args.Count; i++)
        {
            var arg = args[i];
            if (arg == "--") { rest.AddRange(args.Skip(i + 1)); break; }
            if (arg.StartsWith("--", StringComparison.Ordinal) || (arg.StartsWith('-') && arg.Length == 2 && !char.IsDigit(arg[1])))
            {
                var name = arg.TrimStart('-');
                string? value = null;
                var eq = name.IndexOf('=', StringComparison.Ordinal);
                if (eq >= 0) { value = name[(eq + 1)..]; name = name[..eq]; }
                else if (!_flags.Contains(name))
                {
                    if (i + 1 >= args.Count) throw new UsageException($"option --{name} needs a value");
                    value = args[++i];
                }
                _values[name] = value;
                if (!_allValues.TryGetValue(name, out var all)) _allValues[name] = all = [];
                all.Add(value);
            }
            else positional.Add(arg);
        }
        Positional = positional;
        AfterDoubleDash = rest;
    }

    public bool Has(string name) { _consumed.Add(name); return _values.ContainsKey(name); }

    public bool Flag(string name)
    {
        _consumed.Add(name);
        if (!_values.TryGetValue(name, out var v)) return false;
        return v is null || !(v.Equals("false", StringComparison.OrdinalIgnoreCase) || v == "0");
    }

    public string? String(string name) { _consumed.Add(name); return _values.TryGetValue(name, out var v) ? v : null; }

    public string String(string name, string fallback) => String(name) ?? fallback;

    /// <summary>Every value of a repeatable option, in command-line order (String returns only the last).</summary>
    public IReadOnlyList<string> Strings(string name)
    {
        _consumed.Add(name);
        return _allValues.TryGetValue(name, out var all) ? all.Select(v => v ?? "").ToList() : [];
    }

    public int Int(string name, int fallback, int min = int.MinValue, int max = int.MaxValue)
    {
        var s = String(name);
        if (s is null) return fallback;
        if (!int.TryParse(s, NumberStyles.Integer, CultureInfo.InvariantCulture, out var v) || v < min || v > max)
            throw new UsageException($"--{name} expects a whole number from {min} to {max}, got '{s}'");
        return v;
    }

    public double Double(string name, double fallback)
    {
        var s = String(name);
        if (s is null) return fallback;
        if (!double.TryParse(s, NumberStyles.Float, CultureInfo.InvariantCulture, out var v))
            throw new UsageException($"--{name} expects a number, got '{s}'");
        return v;
    }

    public IReadOnlyList<string> List(string name) =>
        String(name)?.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) ?? [];

    public IReadOnlyList<int> IntList(string name, IReadOnlyList<int> fallback)
    {
        var items = List(name);
        if (items.Count == 0) return fallback;
        return items.Select(s =>
        {
            var multiplier = 1;
            var t = s.Replace("_", "", StringComparison.Ordinal);
            if (t.EndsWith('k') || t.EndsWith('K')) { multiplier = 1_000; t = t[..^1]; }
            else if (t.EndsWith('m') || t.EndsWith('M')) { multiplier = 1_000_000; t = t[..^1]; }
            if (!int.TryParse(t, NumberStyles.Integer, CultureInfo.InvariantCulture, out var v) || v < 0)
                throw new UsageException($"--{name} expects comma-separated counts like 1,10,1000 or 10k, got '{s}'");
            return checked(v * multiplier);
        }).ToList();
    }

    public TEnum Enum<TEnum>(string name, TEnum fallback) where TEnum : struct, Enum
    {
        var s = String(name);
        if (s is null) return fallback;
        if (System.Enum.TryParse<TEnum>(s, ignoreCase: true, out var v) && System.Enum.IsDefined(v)) return v;
        throw new UsageException($"--{name} must be one of {string.Join("|", System.Enum.GetNames<TEnum>().Select(n => n.ToLowerInvariant()))}, got '{s}'");
    }

    /// <summary>Call after reading every option: anything left is a typo or an option of another command.</summary>
    public void RejectUnknown(string command)
    {
        var unknown = _values.Keys.Where(k => !_consumed.Contains(k)).ToList();
        if (unknown.Count > 0)
            throw new UsageException($"{command}: unknown option --{unknown[0]} (known: {string.Join(", ", _consumed.Order().Select(c => "--" + c))})");
    }
}
