using System.CommandLine;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli;

/// <summary>
/// The options several verbs share, declared once (as dotnet-trace's CommonOptions.cs): the same name, meaning and
/// help text wherever they appear. A verb's own options are declared in its file under Commands/.
/// </summary>
public sealed class CommonOptions
{
    public Option<string?> Out { get; } = new("--out") { Description = "write the report to F instead of the terminal", HelpName = "F" };

    public Option<IReadOnlyList<string>> Serializers { get; } =
        OptionTypes.CommaList("--serializers", "only these serializers (comma-separated, case-insensitive)", "a,b");

    public Option<string[]> StackTags { get; } = new("--stacktags")
    {
        Description = "add a stack tags file to the built-in serializer tags; repeatable; tags that match nothing are reported " +
            "(docs/analyzer.md#stack-tags)",
        HelpName = "F",
        AllowMultipleArgumentsPerToken = false,
        DefaultValueFactory = _ => [],
    };

    public Option<string[]> Symbols { get; } = new("--symbols")
    {
        Description = "name native frames from the debug files in DIR (any layout), running perf script again; repeatable " +
            "(docs/analyzer.md#native-symbols)",
        HelpName = "DIR",
        AllowMultipleArgumentsPerToken = false,
        DefaultValueFactory = _ => [],
    };

    public Option<bool> StackTagsOnly { get; } = new("--stacktags-only") { Description = "use only the --stacktags file(s), not the built-in serializer tags" };

    public Option<string?> Html { get; } = new(HtmlExporter.Option)
    {
        Description = "also write a self-contained HTML report to F: charts, tables (and for analyze, call trees; docs/report.md)",
        HelpName = "F",
    };

    /// <summary>--tables: compact (the terminal's default for text) or all; analyze and diff read it with <see cref="TablesOf"/>.</summary>
    public Option<ReportTables> Tables { get; } = OptionTypes.Choice("--tables", "text output: compact (what matters most, a short table per operation; within 120 columns; the default) or all (every table and note in full)",
        ("compact", ReportTables.Compact), ("all", ReportTables.All));

    /// <summary>What --tables asks for; without it, compact on text and all in every other format.</summary>
    public ReportTables TablesOf(ParseResult parse, TableFormat format) =>
        parse.GetResult(Tables) is null ? ReportTablesDefault.For(format) : parse.GetValue(Tables);

    public Option<string> Profile { get; } = new("--profile")
    {
        Description = "trace profile from Profiles/profiles.json: default, gc or startup (esp record --list-profiles)",
        HelpName = "NAME",
        DefaultValueFactory = _ => "default",
        // `esp scripts --profile gc generate` and `esp scripts generate --profile gc` alike.
        Recursive = true,
    };

    public CommonOptions()
    {
        Symbols.Validators.Add(r =>
        {
            foreach (var path in r.Tokens.Select(t => t.Value))
                try { Analyzer.Symbols.SymbolFolders.Validate(path); }
                catch (UsageException ex) { r.AddError(ex.Message); }
        });
        StackTags.Validators.Add(r =>
        {
            foreach (var path in r.Tokens.Select(t => t.Value))
                if (!File.Exists(path)) r.AddError($"--stacktags {path}: no such file");
        });
    }

    /// <summary>
    /// --format with the formats this command's report has (<see cref="ReportKind"/>), so help and completion list
    /// exactly those; a format the report lacks gets the line esp always gave ("stats supports --format text, csv or markdown").
    /// </summary>
    public static Option<TableFormat> Format(ReportKind kind)
    {
        var all = Enum.GetValues<TableFormat>().Select(f => (Exporter: Exporters.ForFormat(f), Format: f)).ToList();
        var supported = all.Where(x => kind.Has(x.Exporter)).Select(x => x.Exporter.Name).ToArray();
        var option = new Option<TableFormat>("--format")
        {
            Description = $"output format (default {Exporters.ForFormat(Exporters.DefaultFormat).Name}{(kind.JsonDocs is { } docs ? "; JSON fields: " + docs : "")})",
            HelpName = string.Join("|", supported),
            CustomParser = r =>
            {
                var text = r.Tokens[^1].Value;
                var (exporter, format) = all.FirstOrDefault(x => x.Exporter.Name.Equals(text, StringComparison.OrdinalIgnoreCase));
                if (exporter is null) r.AddError($"--format must be {OptionTypes.Alternatives(supported)}, got '{text}'");
                else if (!kind.Has(exporter)) r.AddError(Exporters.UnsupportedMessage(kind, exporter));
                return format;
            },
        };
        option.CompletionSources.Add(supported);
        return option;
    }

    /// <summary>--stacktags F (repeatable) and --stacktags-only, and the rule that joins them.</summary>
    public void AddStackTags(Command command)
    {
        command.Options.Add(StackTags);
        command.Options.Add(StackTagsOnly);
        command.Validators.Add(r =>
        {
            if (r.GetValue(StackTagsOnly) && r.GetValue(StackTags) is not { Length: > 0 }) r.AddError("--stacktags-only needs at least one --stacktags F");
        });
    }
}
