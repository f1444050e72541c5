using System.Globalization;
using System.Text;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>
/// Lines that stand for serializers (the scaling chart). Colors mean causes on every chart (<see cref="CauseColors"/>),
/// so a serializer gets none of its own: a slate shade of the neutral series (<see cref="ChartSpec.NeutralClass"/>),
/// a dash pattern and a point shape, 15 combinations, named by the legend and every point's tooltip.
/// </summary>
internal static class SerializerLines
{
    private static readonly string[] Shades = ["#2b2b2b", "#44546a", "#8d9aab"];
    /// <summary>SVG stroke-dasharray values in px; empty is a solid line.</summary>
    private static readonly int[][] Dashes = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4]];

    public static int Count => Shades.Length * Dashes.Length;

    /// <summary>Shade i mod 3 and dash i mod 5: 3 and 5 have no common factor, so the first 15 are all different and neighbours differ in both.</summary>
    public static string ClassOf(int i) => "ct-serializer-" + (i % Count).ToString(CultureInfo.InvariantCulture);

    /// <summary>The rules for every class: its line, its points and its legend swatch (the dash drawn as a gradient).</summary>
    public static string Css()
    {
        var css = new StringBuilder("/* Serializer lines (Analyzer/Reports/Html/SerializerLines.cs): no cause color, a shade and a dash */\n");
        for (var i = 0; i < Count; i++)
        {
            var cls = ClassOf(i);
            var shade = Shades[i % Shades.Length];
            var dash = Dashes[i % Dashes.Length];
            css.Append('.').Append(cls).Append(" .ct-line, .").Append(cls).Append(" .ct-point { stroke: ").Append(shade).Append("; }\n");
            if (dash.Length > 0) css.Append('.').Append(cls).Append(" .ct-line { stroke-dasharray: ").AppendJoin(' ', dash).Append("; }\n");
            if (i % 2 == 1) css.Append('.').Append(cls).Append(" .ct-point { stroke-linecap: square; }\n");
            css.Append(".legend .").Append(cls).Append(" .swatch { ").Append(Swatch(shade, dash)).Append(" }\n");
        }
        return css.ToString();
    }

    private static string Swatch(string shade, int[] dash)
    {
        if (dash.Length == 0) return $"background: {shade};";
        var stops = new List<string>();
        var at = 0;
        for (var k = 0; k < dash.Length; k++)
        {
            var color = k % 2 == 0 ? shade : "transparent";
            stops.Add(string.Create(CultureInfo.InvariantCulture, $"{color} {at}px {at + dash[k]}px"));
            at += dash[k];
        }
        return $"background: repeating-linear-gradient(90deg, {string.Join(", ", stops)});";
    }
}
