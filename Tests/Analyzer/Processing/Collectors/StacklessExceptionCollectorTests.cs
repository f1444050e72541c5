using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using static EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors.CollectorInputs;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

/// <summary>Throws recorded without stacks, charged at the pass's position on the clock, their sites from sampled stacks.</summary>
public sealed class StacklessExceptionCollectorTests
{
    private const string Format = "System.FormatException";
    private const string Xml = "System.Xml.XmlException";
    private static readonly ExceptionSite GetBytes = new(Format, Sites.Frame("M!Base64Encoding.GetBytes"));
    private static readonly ExceptionSite Other = new(Format, Sites.Frame("M!Other.Parse"));

    [Fact]
    public void Throws_are_charged_where_the_pass_stands_and_shared_among_the_sampled_sites()
    {
        // Thread 1 throws 3 before the run opens (clock 100), 5 in it; thread 2 throws 2 in it, not the run's thread.
        // Samples (in time order, as ExceptionFiles reads them): three in the run (stacks 10, 10, 11), one before it of another type.
        ExceptionFiles.Throw T(long qpc, int thread, string type = Format) => new(qpc, thread, type);
        var files = new ExceptionFiles
        {
            Throws = [T(10, 1), T(20, 1), T(30, 1), T(110, 1), T(120, 2), T(130, 1), T(140, 1), T(150, 2), T(160, 1), T(170, 1)],
            Samples = [new(50, 1, Xml, [12]), new(115, 1, Format, [10]), new(125, 1, Format, [10]), new(135, 1, Format, [11])],
            Windows = 2,
        };
        var collector = new StacklessExceptionCollector(files);
        var run = Run(100, 200);
        var (t1, t2) = (Thread(1), Thread(2));
        RunDraft? open = null;
        (RunDraft?, ThreadDraft?) Where(int thread) => (thread == 1 ? open : null, thread == 1 ? t1 : t2);
        int Intern(ulong[] leafFirst) => (int)leafFirst[0];

        collector.Before(100, Where, Intern);
        Assert.Equal((3, 1), (collector.Throws, collector.Sampled)); // the XmlException sample at 50
        open = run;
        collector.Before(180, Where, Intern);
        open = null;
        collector.Before(long.MaxValue, Where, Intern);
        Assert.Equal((10, 4), (collector.Throws, collector.Sampled));

        var exceptions = new ExceptionCollector();
        collector.CountInto(exceptions, (type, stack) => stack == 10 ? GetBytes : stack == 11 ? Other : new ExceptionSite(type, Sites.Frame("M!X.Y")));
        var runCounts = run.Counters.Freeze();
        // 5 throws, sampled 2:1 between two sites: 3.33 and 1.67, so 3 and 2 (the larger remainder gets the one left).
        Assert.Equal(5, runCounts.Exceptions);
        Assert.Equal([(GetBytes, 3), (Other, 2)], runCounts.ExceptionsBySite.Select(p => (p.Key, p.Value)));
        Assert.Equal(8, t1.Counters.Freeze().Exceptions);
        // Thread 2 has no sample of its own: the whole trace's samples of the type give its sites.
        Assert.Equal(2, t2.Counters.Freeze().Exceptions);
        Assert.Equal(2, t2.Counters.Freeze().ExceptionsBySite.Values.Sum());
    }

    /// <summary>
    /// The stackless session stopped at a high throw rate: the file has 2 of a run's throws, the process counted 9
    /// (RunStop version 2). The 7 left are shared among the run's own sampled sites; a run with neither file throws nor
    /// samples takes the whole trace's; a run the file already covers gets nothing more.
    /// </summary>
    [Fact]
    public void Throws_the_process_counted_beyond_the_file_are_added_at_the_sampled_sites()
    {
        ExceptionFiles.Throw T(long qpc) => new(qpc, 1, Format);
        var files = new ExceptionFiles
        {
            Throws = [T(110), T(120), T(310)],
            Samples = [new(115, 1, Format, [10]), new(125, 1, Format, [11]), new(135, 1, Format, [10])],
            Windows = 1,
            StoppedEarly = true,
        };
        var collector = new StacklessExceptionCollector(files);
        var (first, second, third) = (Run(100, 200, 1), Run(200, 300, 2), Run(300, 400, 3));
        first.InProcessExceptions = 9;
        second.InProcessExceptions = 4;
        third.InProcessExceptions = 1;
        RunDraft? open = null;
        (RunDraft?, ThreadDraft?) Where(int thread) => (open, null);
        foreach (var (run, until) in new[] { (first, 200L), (second, 300L), (third, 400L) })
        {
            open = run;
            collector.Before(until, Where, leafFirst => (int)leafFirst[0]);
        }
        collector.CountInto(new ExceptionCollector(), (type, stack) => stack == 10 ? GetBytes : Other, [first, second, third]);
        Assert.Equal(9, first.Counters.Freeze().Exceptions);
        Assert.Equal([(GetBytes, 6), (Other, 3)], first.Counters.Freeze().ExceptionsBySite.Select(p => (p.Key, p.Value)).OrderBy(p => p.Key.Frame, StringComparer.Ordinal));
        Assert.Equal(4, second.Counters.Freeze().Exceptions); // the whole trace's samples: 2 GetBytes, 1 Other
        Assert.Equal(1, third.Counters.Freeze().Exceptions); // the file's own
        Assert.Equal(7 + 4, collector.ToppedUp);
        // The runs whose throws had events (the file's, or a window's) are said apart: their times hold that cost.
        Assert.Equal([first, third], collector.RunsWithThrowEvents([first, second, third]));
        // A file that ran to the end (the recorder did not stop it): a run's count above it is other threads' throws.
        Assert.Empty(new StacklessExceptionCollector(new ExceptionFiles { Throws = files.Throws, Samples = files.Samples }).RunsWithThrowEvents([first, second, third]));
    }

    [Fact]
    public void Shares_add_up_to_the_count_and_no_sample_leaves_one_unknown_site()
    {
        var shares = StacklessExceptionCollector.Shares(12_800, [GetBytes, GetBytes, Other], Format).ToList();
        Assert.Equal(12_800, shares.Sum(s => s.Count));
        Assert.Equal([(GetBytes, 8533), (Other, 4267)], shares);
        Assert.Equal([(new ExceptionSite(Xml, CodeSite.UnknownFrame), 7)], StacklessExceptionCollector.Shares(7, [], Xml));
    }
}
