using System.CommandLine;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Cli;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Cli;

/// <summary>
/// The esp command line, run in-process on a captured console. The cases come from the command tree itself
/// (EspCommandLine.Create), so a verb or option added later is covered without touching this file.
/// </summary>
public sealed partial class CommandLineTests
{
    private static readonly RootCommand Tree = EspCommandLine.Create(new CapturedConsole());

    /// <summary>Every command as typed after `esp` ([] is esp itself, ["stacktags", "check"] a subcommand).</summary>
    public static TheoryData<string[]> CommandPaths() => [.. Commands(Tree, []).Select(c => c.Path)];

    /// <summary>Every option of every command (inherited ones included), by its name.</summary>
    public static TheoryData<string[], string> CommandOptions()
    {
        var data = new TheoryData<string[], string>();
        foreach (var (path, _) in Commands(Tree, []))
            foreach (var option in VisibleOptions(path)) data.Add(path, option.Name);
        return data;
    }

    [Theory]
    [MemberData(nameof(CommandPaths))]
    public async Task Help_lists_every_option_and_argument_with_its_description(string[] path)
    {
        var (exit, stdout, stderr) = await Esp([.. path, "--help"]);
        Assert.True(exit == ExitCodes.Ok, stderr);
        Assert.Empty(stderr);
        // Help wraps long descriptions within 120 columns, or a narrower terminal's: compare with whitespace runs made one space.
        Assert.All(stdout.ReplaceLineEndings("\n").Split('\n'), l => Assert.True(l.TrimEnd().Length <= PlainText.Width, $"{l.TrimEnd().Length} columns: {l}"));
        var help = OneSpaced(stdout);
        var command = Find(path);
        foreach (var option in VisibleOptions(path))
        {
            Assert.False(string.IsNullOrWhiteSpace(option.Description), $"esp {string.Join(' ', path)}: {option.Name} has no description");
            // System.CommandLine lists the dash forms; its /h and /? spellings of --help are for Windows habits, not shown.
            foreach (var name in option.Aliases.Prepend(option.Name).Where(n => n.StartsWith('-')))
                Assert.Contains(name, help, StringComparison.Ordinal);
            Assert.Contains(OneSpaced(option.Description!), help, StringComparison.Ordinal);
        }
        foreach (var argument in command.Arguments.Where(a => !a.Hidden))
        {
            Assert.False(string.IsNullOrWhiteSpace(argument.Description), $"esp {string.Join(' ', path)}: {argument.Name} has no description");
            Assert.Contains(OneSpaced(argument.Description!), help, StringComparison.Ordinal);
        }
        foreach (var sub in command.Subcommands.Where(c => !c.Hidden))
            Assert.Contains(OneSpaced(sub.Description!), help, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Record_help_lists_the_benchmark_options_it_passes_on()
    {
        var (_, stdout, _) = await Esp(RecordVerb.Name, "--help");
        var names = RecordVerb.BenchmarkOptionNames();
        Assert.Contains("--runs", names);
        Assert.All(names, name => Assert.Contains(name, stdout, StringComparison.Ordinal));
    }

    [Theory]
    [MemberData(nameof(CommandOptions))]
    public async Task A_mistyped_option_names_the_one_meant_and_exits_2(string[] path, string option)
    {
        var typo = Typo(option);
        var (exit, stdout, stderr) = await Esp([.. path, typo]);
        Assert.Equal(ExitCodes.Usage, exit);
        // record adds that the option is not the benchmark's either (it passes those on).
        Assert.StartsWith($"esp{string.Concat(path.Select(p => " " + p))}: unknown option '{typo}' (did you mean '{option}'?)", Assert.Single(Lines(stderr)), StringComparison.Ordinal);
        Assert.Empty(stdout);
    }

    [Theory]
    [MemberData(nameof(CommandPaths))]
    public async Task A_mistyped_command_names_the_one_meant_and_exits_2(string[] path)
    {
        if (path.Length == 0) return;
        var typo = Typo(path[^1]);
        var (exit, stdout, stderr) = await Esp([.. path[..^1], typo]);
        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Single(Lines(stderr));
        Assert.Contains($"unknown command '{typo}' (did you mean '{path[^1]}'?)", stderr, StringComparison.Ordinal);
        Assert.Empty(stdout);
    }

    [Theory]
    [InlineData("unknown option '--frobnicate' (esp analyze --help lists the options)", "analyze", "x", "--frobnicate")]
    [InlineData("unknown option '--runz' (did you mean '--runs'?); neither the recorder's nor the benchmark's (esp record --help lists both)", "record", "--runz", "2")]
    [InlineData("analyze needs exactly one TRACE (folder, .nettrace, .zip or .etl)", "analyze")]
    [InlineData("analyze needs exactly one TRACE (folder, .nettrace, .zip or .etl)", "analyze", "a", "b")]
    [InlineData("stats supports --format text, csv or markdown", "stats", "x.nettrace", "--format", "json")]
    [InlineData("--format must be text, csv, markdown or json, got 'yaml'", "analyze", "x", "--format", "yaml")]
    [InlineData("--top expects a whole number from 0 to 10000, got 'x'", "analyze", "t", "--top", "x")]
    [InlineData("cleanup takes no arguments", "cleanup", "now")]
    public async Task Usage_errors_are_one_line_naming_the_problem_and_exit_2(string message, params string[] args)
    {
        var (exit, stdout, stderr) = await Esp(args);
        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Equal($"esp {args[0]}: {message}", Assert.Single(Lines(stderr)));
        Assert.Empty(stdout);
    }

    [Fact]
    public async Task Esp_alone_prints_the_overview_and_exits_2_and_help_is_help()
    {
        var (exit, stdout, _) = await Esp();
        Assert.Equal(ExitCodes.Usage, exit);
        Assert.All(Tree.Subcommands, verb => Assert.Contains(verb.Name, stdout, StringComparison.Ordinal));
        Assert.Equal((ExitCodes.Ok, stdout, ""), await Esp(EspCommandLine.HelpVerb));
        Assert.Equal(await Esp(AnalyzeVerb.Name, "--help"), await Esp(EspCommandLine.HelpVerb, AnalyzeVerb.Name));
    }

    [Fact]
    public async Task Options_take_inline_values_and_shared_options_keep_their_place_before_the_subcommand()
    {
        var dir = Repo.NewTempDir("scripts-cli");
        try
        {
            Assert.Equal(ExitCodes.Ok, (await Esp("scripts", "--profile=gc", $"--out={dir}", "generate")).Exit);
            Assert.Equal(ExitCodes.Ok, (await Esp("scripts", "check", "--out", dir, "--profile", "gc")).Exit);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>One character doubled: a typo one edit away from the name, as a slip of the finger makes it.</summary>
    private static string Typo(string name)
    {
        var at = name.TrimStart('-').Length > 1 ? name.Length - name.TrimStart('-').Length + 1 : name.Length - 1;
        return name.Insert(at, name[at].ToString());
    }

    private static async Task<(int Exit, string StdOut, string StdErr)> Esp(params string[] args)
    {
        var console = new CapturedConsole();
        var exit = await EspCommandLine.InvokeAsync(args, console, CancellationToken.None);
        return (exit, console.StdOut, console.StdErr);
    }

    private static IEnumerable<(string[] Path, Command Command)> Commands(Command command, string[] path) =>
        command.Subcommands.SelectMany(c => Commands(c, [.. path, c.Name])).Prepend((path, command));

    private static Command Find(string[] path) => path.Aggregate((Command)Tree, (c, name) => c.Subcommands.Single(s => s.Name == name));

    /// <summary>The command's own options and the recursive ones of the commands above it, as help lists them.</summary>
    private static IEnumerable<Option> VisibleOptions(string[] path)
    {
        var options = new List<Option>(Find(path).Options);
        for (var depth = path.Length - 1; depth >= 0; depth--)
            options.AddRange(Find(path[..depth]).Options.Where(o => o.Recursive));
        return options.Where(o => !o.Hidden).DistinctBy(o => o.Name);
    }

    private static string OneSpaced(string text) => Whitespace().Replace(text, " ").Trim();

    private static string[] Lines(string text) => text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    [GeneratedRegex(@"\s+")]
    private static partial Regex Whitespace();
}
