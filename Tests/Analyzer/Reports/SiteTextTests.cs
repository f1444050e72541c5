using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// Sites are typed in the model and written only here: the JSON keys and table rows are the strings the analyzer wrote
/// when it keyed its dictionaries by them (the golden recordings throw no exceptions, so this holds the format).
/// </summary>
public sealed class SiteTextTests
{
    [Fact]
    public void A_runs_sites_are_written_type_at_frame_a_threads_with_their_stack_tag()
    {
        var draft = new AnalysisDraft { Trace = new TraceInfo { Path = "t.nettrace", Format = "nettrace (EventPipe)" } };
        var run = new RunDraft { Key = new RunKey("DataContract", "deserialize", 10, 1), StartMs = 1, EndMs = 2 };
        var thread = new ThreadDraft { ThreadId = 7 };
        var site = new ExceptionSite("System.FormatException", Sites.Frame("M!T.Throw"), "DataContract");
        var lockSite = Sites.At("M!T.Lock", "DataContract");
        foreach (var counters in new[] { run.Counters, thread.Counters })
        {
            counters.CountException(site, 3);
            counters.CountContention(lockSite, 0.25);
        }
        draft.RunList.Add(run);
        draft.ThreadList.Add(thread.Freeze());
        var analysis = draft.Freeze();

        var runJson = AnalysisReport.Json(analysis)["runs"]![0]!;
        Assert.Equal(3, (int)runJson["exceptionsByType"]!["System.FormatException at M!T.Throw"]!);
        var threadJson = WholeTraceTables.Json(analysis)["threads"]![0]!;
        Assert.Equal(3, (int)threadJson["exceptionsByType"]!["System.FormatException at M!T.Throw [DataContract]"]!);
        Assert.Equal(0.25, (double)threadJson["contentionMsByFrame"]!["M!T.Lock [DataContract]"]!);
        var tables = WholeTraceTables.Tables(analysis).ToList();
        Assert.Contains(tables.SelectMany(t => t.Rows), r => r[0] == "System.FormatException at M!T.Throw [DataContract]");
        Assert.Contains(tables.SelectMany(t => t.Rows), r => r[0] == "M!T.Lock [DataContract]");
    }
}
