using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>A trace without benchmark runs: the whole trace per thread (the same tables as the text output).</summary>
internal sealed class WholeTraceSection(TraceAnalysis analysis) : IReportSection
{
    public string Id => "whole-trace";
    public string Title => "Whole trace, per thread";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        html.Element("p", WholeTraceTables.GcLine(analysis) + ". This trace has no benchmark runs, so it is read whole: every thread's "
            + "CPU by stack tag (the serializer-library tags find serializer code in any app), CPU by module and namespace, allocations, exceptions and lock waits.", ("class", "muted"));
        foreach (var table in WholeTraceTables.Tables(analysis)) TableHtml.Write(html, table);
        foreach (var table in WholeTraceTables.HotMethods(analysis, 15)) TableHtml.Write(html, table);
    }
}
