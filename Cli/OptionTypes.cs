using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;

namespace EtwSerializerProfiler.Cli;

/// <summary>
/// Option shapes several commands use, parsed the way esp always has: names matched case-insensitively, a comma list
/// as one value, and a bad value refused with one line that names the option and what it takes (exit 2).
/// </summary>
public static class OptionTypes
{
    /// <summary>One of a few names (case-insensitive); help shows them as a|b|c and the shell completes them.</summary>
    public static Option<T> Choice<T>(string name, string description, params (string Name, T Value)[] choices)
    {
        var names = choices.Select(c => c.Name).ToArray();
        var option = new Option<T>(name)
        {
            Description = description,
            HelpName = string.Join("|", names),
            // A choice always takes its value: a missing one is "option --x needs a value", not the default.
            Arity = ArgumentArity.ExactlyOne,
            CustomParser = r =>
            {
                var text = r.Tokens[^1].Value;
                foreach (var (n, value) in choices)
                    if (n.Equals(text, StringComparison.OrdinalIgnoreCase)) return value;
                r.AddError($"{name} must be {Alternatives(names)}, got '{text}'");
                return default;
            },
        };
        option.CompletionSources.Add(names);
        return option;
    }

    /// <summary>A whole number within bounds.</summary>
    public static Option<int> Int(string name, string description, int defaultValue, int min, int max) => new(name)
    {
        Description = description,
        HelpName = "N",
        DefaultValueFactory = _ => defaultValue,
        CustomParser = r =>
        {
            var text = r.Tokens[^1].Value;
            if (int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var v) && v >= min && v <= max) return v;
            r.AddError($"{name} expects a whole number from {min} to {max}, got '{text}'");
            return defaultValue;
        },
    };

    /// <summary>A number within bounds; null when the option is not given.</summary>
    public static Option<double?> Number(string name, string description, string helpName, double min, double max) => new(name)
    {
        Description = description,
        HelpName = helpName,
        Arity = ArgumentArity.ExactlyOne,
        CustomParser = r =>
        {
            var text = r.Tokens[^1].Value;
            if (double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var v) && v >= min && v <= max) return v;
            r.AddError(FormattableString.Invariant($"{name} expects a number from {min} to {max}, got '{text}'"));
            return null;
        },
    };

    /// <summary>A comma-separated list in one value ("a,b"); empty when the option is not given.</summary>
    public static Option<IReadOnlyList<string>> CommaList(string name, string description, string helpName) => new(name)
    {
        Description = description,
        HelpName = helpName,
        Arity = ArgumentArity.ExactlyOne,
        DefaultValueFactory = _ => [],
        CustomParser = r => r.Tokens[^1].Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries),
    };

    /// <summary>"a, b or c".</summary>
    public static string Alternatives(IReadOnlyList<string> names) =>
        names.Count == 1 ? names[0] : string.Join(", ", names.Take(names.Count - 1)) + " or " + names[^1];
}
