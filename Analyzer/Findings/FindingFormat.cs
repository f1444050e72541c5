using System.Globalization;

namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>Number formatting for finding messages: invariant culture, so messages read the same on every machine and in tests.</summary>
internal static class FindingFormat
{
    public static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);

    /// <summary>"13%", like the analyzer's tables (P0 would put a culture-dependent space before the sign).</summary>
    public static string Pct(double fraction) => (fraction * 100).ToString("F0", CultureInfo.InvariantCulture) + "%";
}
