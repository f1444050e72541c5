using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Cli;

/// <summary>A command line esp cannot run: one line for stderr, exit 2.</summary>
public sealed record UsageError(string Verb, string Message)
{
    /// <summary>"esp analyze: unknown option '--formt' (did you mean '--format'?)".</summary>
    public string Line => Verb.Length == 0 ? $"esp: {Message}" : $"esp {Verb}: {Message}";
}

/// <summary>
/// What is wrong with a command line, as one line, naming the option or command a typo was meant to be.
/// System.CommandLine's own ParseErrorAction prints its suggestions on stdout, then the whole help, and exits 1; and
/// it takes an unknown option for the TRACE argument when one is expected ("--formt" becomes the trace's path), so
/// esp looks for those first and reports the rest of the parser's errors as they are.
/// </summary>
public static class UsageErrors
{
    private static readonly ConditionalWeakTable<Command, string> ArgumentsMessages = [];

    /// <summary>
    /// The line a wrong number of arguments gets instead of the parser's ("Required argument missing"): what esp said
    /// before System.CommandLine, naming what the argument may be ("analyze needs exactly one TRACE (folder, ...)").
    /// </summary>
    public static T WithArgumentsMessage<T>(this T command, string message) where T : Command
    {
        ArgumentsMessages.AddOrUpdate(command, message);
        return command;
    }

    /// <returns>The error, or null when the command line is fine, or asks for help, the version or completions
    /// (those win over errors, as in System.CommandLine).</returns>
    public static UsageError? Find(ParseResult result)
    {
        if (result.Action is not null and not ParseErrorAction && result.Action != result.CommandResult.Command.Action) return null;
        var command = result.CommandResult;
        var verb = Verb(command);
        if (StrayOption(result) is { } stray) return new UsageError(verb, UnknownOption(stray.Value.Split('=', ':')[0], command));
        if (result.Errors.Count == 0) return null;
        if (OptionWithoutValue(result) is { } option) return new UsageError(verb, $"option {option} needs a value");
        if (ArgumentsMessages.TryGetValue(command.Command, out var arguments) && !ArgumentCountFits(result, command)) return new UsageError(verb, arguments);
        if (command.Command.Subcommands.Count > 0 && command.Command.Action is null)
        {
            var names = command.Command.Subcommands.Where(c => !c.Hidden).Select(c => c.Name).ToList();
            var typed = command.Tokens.FirstOrDefault(t => t.Type == TokenType.Argument)?.Value ?? result.UnmatchedTokens.FirstOrDefault();
            return new UsageError(verb, typed is null
                ? $"needs a command: {OptionTypes.Alternatives(names)}"
                : $"unknown command '{typed}'{Suggestion(typed, names)}; the commands: {string.Join(", ", names)}");
        }
        return new UsageError(verb, CommandRunner.OneLine(result.Errors[0].Message));
    }

    /// <summary>"analyze", "stacktags check"; empty for esp itself.</summary>
    public static string Verb(CommandResult command)
    {
        var names = new List<string>();
        for (var c = command; c.Parent is CommandResult parent; c = parent) names.Insert(0, c.Command.Name);
        return string.Join(' ', names);
    }

    /// <summary>" (did you mean '--format'?)", or nothing when no name is close (<see cref="TypoSuggestion"/>).</summary>
    public static string Suggestion(string typed, IEnumerable<string> candidates) =>
        TypoSuggestion.Closest(typed, candidates) is { } best ? $" (did you mean '{best}'?)" : "";

    /// <summary>
    /// A token that looks like an option (starts with '-') and is no option's value: left unmatched, or taken for a
    /// command's argument. After `--` everything is an argument (the way to name a file "-x").
    /// </summary>
    private static Token? StrayOption(ParseResult result)
    {
        var optionValues = new HashSet<Token>(ReferenceEqualityComparer.Instance);
        for (SymbolResult? r = result.CommandResult; r is not null; r = r.Parent)
            if (r is CommandResult c)
                foreach (var option in c.Children.OfType<OptionResult>()) optionValues.UnionWith(option.Tokens);
        var passedOn = !result.CommandResult.Command.TreatUnmatchedTokensAsErrors;
        foreach (var token in result.Tokens)
        {
            if (token.Type == TokenType.DoubleDash) break;
            if (token.Type != TokenType.Argument || optionValues.Contains(token) || !LooksLikeOption(token.Value)) continue;
            // `esp record` passes what it does not know to the benchmark, whose parser checks it (RecordVerb).
            if (passedOn) continue;
            return token;
        }
        return null;
    }

    /// <summary>An option given last, without the value it takes ("Required argument missing for option" to the parser).</summary>
    private static string? OptionWithoutValue(ParseResult result) => result.Errors
        .Select(e => e.SymbolResult switch { OptionResult o => o, ArgumentResult { Parent: OptionResult o } => o, _ => null })
        .FirstOrDefault(o => o is { Implicit: false, Tokens.Count: 0 } && o.Option.Arity.MinimumNumberOfValues > 0)?.IdentifierToken?.Value;

    /// <summary>The command's arguments, and tokens nothing took, are as many as its arguments' arity allows.</summary>
    private static bool ArgumentCountFits(ParseResult result, CommandResult command)
    {
        var given = command.Children.OfType<ArgumentResult>().Sum(a => a.Tokens.Count) + result.UnmatchedTokens.Count;
        var arguments = command.Command.Arguments;
        return given >= arguments.Sum(a => a.Arity.MinimumNumberOfValues) && given <= arguments.Sum(a => a.Arity.MaximumNumberOfValues);
    }

    private static bool LooksLikeOption(string token) =>
        token.Length > 1 && token[0] == '-' && !double.TryParse(token, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out _);

    /// <summary>The names and aliases of the options a command takes: its own and the recursive ones above it (--help).</summary>
    public static IReadOnlyList<string> OptionNames(CommandResult command)
    {
        var names = new List<string>();
        for (var c = command; ; c = (CommandResult)c.Parent!)
        {
            names.AddRange(c.Command.Options.Where(o => !o.Hidden && (c == command || o.Recursive)).SelectMany(o => o.Aliases.Prepend(o.Name)));
            if (c.Parent is not CommandResult) break;
        }
        return names;
    }

    private static string UnknownOption(string name, CommandResult command)
    {
        var suggestion = Suggestion(name, OptionNames(command));
        var verb = Verb(command);
        return $"unknown option '{name}'{(suggestion.Length > 0 ? suggestion : $" (esp {verb}{(verb.Length > 0 ? " " : "")}--help lists the options)")}";
    }
}
