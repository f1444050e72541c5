using System.Text;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>
/// The one map from a kind of cause (<see cref="Cause.Kind"/>, the verdicts' names) to its color, in every report and
/// chart: a CSS class per kind that sets --cause, which the picture's segments, the legends, the verdicts' swatches
/// and Chartist series (GC pauses) paint with. Colors: Tableau 10, distinct for colour-blind readers.
/// </summary>
internal static class CauseColors
{
    private static readonly (string Kind, string Slug, string Color)[] Known =
    [
        (StackTagGroups.SerializerCode, "own", "#4e79a7"),
        (StackTagGroups.Reflection, "reflection", "#e15759"),
        (StackTagGroups.Activator, "activator", "#f28e2b"),
        (StackTagGroups.Gc, "gc", "#76b7b2"),
        (StackTagGroups.Jit, "jit", "#edc948"),
        (StackTags.SerializerStackTagsGenerator.ExceptionsTag, "exceptions", "#ff9da7"),
        ("Native runtime", "native", "#af7aa1"),
        ("Kernel", "kernel", "#59a14f"),
        (Cause.OtherCode, "other", "#bab0ac"),
        (Cause.OffCpu, "offcpu", "#79706e"),
    ];

    /// <summary>Kinds the map does not know (a custom stack tag's first level) take one of these, by their name: the same in every report.</summary>
    private static readonly string[] Extra = ["#9c755f", "#86bcb6", "#b6992d", "#d37295", "#a0cbe8"];

    /// <summary>The CSS class of a kind: "cause-gc"; "cause-x0".."cause-x4" for a kind the map does not know.</summary>
    public static string ClassOf(string kind)
    {
        foreach (var k in Known)
            if (k.Kind == kind) return "cause-" + k.Slug;
        var hash = 0;
        foreach (var ch in kind) hash = (hash * 31 + ch) % 1_000_003;
        return "cause-x" + (hash % Extra.Length).ToString(System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>The rules that give each class its color, for the page's style element.</summary>
    public static string Css()
    {
        var css = new StringBuilder("/* Cause colors (Analyzer/Reports/Html/CauseColors.cs) */\n");
        foreach (var (_, slug, color) in Known) css.Append(".cause-").Append(slug).Append(" { --cause: ").Append(color).Append("; }\n");
        for (var i = 0; i < Extra.Length; i++) css.Append(".cause-x").Append(i).Append(" { --cause: ").Append(Extra[i]).Append("; }\n");
        return css.ToString();
    }
}
