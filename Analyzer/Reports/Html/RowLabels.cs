using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>How a summary row is named on a chart axis: the serializer, plus N when the trace has several N.</summary>
internal static class RowLabels
{
    public static string Of(CaseSummary s, bool manyN, bool withOperation = false) =>
        s.Serializer + (withOperation ? " " + s.Operation : "") + (manyN ? Fmt.NSuffix(s.Objects) : "");

    public static bool ManyN(IEnumerable<CaseSummary> summaries) => summaries.Select(s => s.Objects).Distinct().Count() > 1;

    /// <summary>Room for the longest label on a category axis, in pixels (Chartist does not measure labels itself).</summary>
    public static int AxisOffset(IEnumerable<string> labels) => Math.Clamp(labels.Select(l => l.Length).DefaultIfEmpty(10).Max() * 7 + 12, 60, 320);
}
