using System.Xml;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>The report's building blocks, without a trace.</summary>
public sealed class ReportPartsTests
{
    [Theory]
    [InlineData("Serialize\\System.Text.Json", StackTagGroups.SerializerCode)]
    [InlineData("Deserialize\\Reflection", StackTagGroups.SerializerCode)]
    [InlineData("Reflection\\FieldInfo.GetValue", StackTagGroups.Reflection)]
    [InlineData("Activator\\CreateInstance", StackTagGroups.Activator)]
    [InlineData("GC", StackTagGroups.Gc)]
    [InlineData("JIT", StackTagGroups.Jit)]
    [InlineData("Other", StackTagGroups.Other)]
    [InlineData("Test Infrastructure", StackTagGroups.Other)]
    [InlineData("Test Duration\\SerializeDuration", StackTagGroups.Other)]
    [InlineData("Networking\\Sockets", "Networking")]
    public void Tag_paths_group_by_their_first_level(string path, string group) => Assert.Equal(group, StackTagGroups.GroupOf(path));

    [Fact]
    public void Html_writer_escapes_text_and_attributes_and_balances_elements()
    {
        var w = new HtmlWriter();
        using (w.Block("div", ("title", "a \"b\" <c> & d"), ("skip", null)))
            w.Element("span", "List`1[<T>] & \u0001").Void("br");
        var html = w.ToString();
        Assert.Equal("<div title=\"a &quot;b&quot; &lt;c&gt; &amp; d\"><span>List`1[&lt;T&gt;] &amp; ?</span><br/></div>", html);
        Assert.Throws<ArgumentException>(() => new HtmlWriter().RawCode("script", "x = ']]>'"));
        Assert.Throws<ArgumentException>(() => new HtmlWriter().RawCode("script", "document.write('</script>')"));
        Assert.Throws<InvalidOperationException>(() => new HtmlWriter().Open("p").ToString());
    }

    [Fact]
    public void A_page_of_sections_is_valid_XML_with_the_chart_library_inlined()
    {
        var html = HtmlReport.Render("t <1>", "sub & title", [new NotesSection([new ReportNote("finding", "Reflection dominates", "57% in FieldInfo.GetValue", "Reflection"), new ReportNote("warning", "w")])]);
        var doc = new XmlDocument { XmlResolver = null };
        using (var reader = XmlReader.Create(new StringReader(html), new XmlReaderSettings { DtdProcessing = DtdProcessing.Ignore })) doc.Load(reader);
        Assert.Contains("Chartist", ReportAssets.Instance.Credit, StringComparison.Ordinal);
        Assert.Contains("ReportGenerator", ReportAssets.Instance.Credit, StringComparison.Ordinal);
        Assert.Contains(ReportAssets.Instance.ChartistJs, html, StringComparison.Ordinal);
        // Findings come before warnings.
        var items = doc.GetElementsByTagName("li").Cast<XmlElement>().Where(e => e.HasAttribute("data-kind")).Select(e => e.GetAttribute("data-kind")).ToList();
        Assert.Equal(["finding", "warning"], items);
    }

    [Theory]
    [InlineData(2000, 20000, 3.301030, 4.301030)]
    [InlineData(1.3, 480, 0, 2.698970)]
    [InlineData(900, 1100, 2.698970, 3.301030)]
    public void Log_axes_cover_the_data_with_round_ticks(double min, double max, double low, double high)
    {
        var (lo, hi, ticks) = ScalingSection.LogTicks(min, max);
        Assert.Equal(low, lo, 5);
        Assert.Equal(high, hi, 5);
        Assert.True(lo <= Math.Log10(min) + 1e-6 && hi >= Math.Log10(max) - 1e-6);
        Assert.Contains(ticks, t => Math.Abs(t - lo) < 1e-6);
        Assert.Contains(ticks, t => Math.Abs(t - hi) < 1e-6);
    }
}
