using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Samples;
using Mark = EtwSerializerProfiler.Analyzer.Processing.ExceptionFiles.DispatchMark;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing;

public sealed class ExceptionFilesTests
{
    /// <summary>
    /// Two windows of one thread's throws, the first cut during a dispatch (its last throw has no end in the file):
    /// kept, that throw's span ran from the first window to the second's first end, over 2 s of other work.
    /// </summary>
    [Fact]
    public void A_throw_its_file_ends_before_ending_opens_no_span()
    {
        Mark[] first = [new(100, 1, true), new(110, 1, false), new(200, 1, true), new(300, 2, true), new(310, 2, false)];
        Mark[] second = [new(2_000_000, 1, false), new(2_000_100, 1, true), new(2_000_120, 1, false)];

        var kept = ExceptionFiles.Ended(first).ToList();
        Assert.DoesNotContain(new Mark(200, 1, true), kept);
        Assert.Equal(4, kept.Count);
        Assert.Equal(second, ExceptionFiles.Ended(second));

        Assert.Equal(10 + 10 + 20, SpanTicks([.. kept, .. second]));
        // The old reading, every mark kept: the cut throw's span reached the next file's first end.
        Assert.Equal(10 + 10 + 20 + (2_000_000 - 200), SpanTicks([.. first, .. second]));
    }

    [Fact]
    public void A_file_without_ends_gives_no_spans()
    {
        Assert.Empty(ExceptionFiles.Ended([new(100, 1, true), new(200, 1, true)]));
    }

    private static double SpanTicks(IEnumerable<Mark> marks)
    {
        var builder = new RuntimeWork.Builder();
        foreach (var m in marks.OrderBy(m => m.Qpc))
            if (m.Start) builder.Open(m.ThreadId, RuntimeWorkKind.ExceptionDispatch, m.Qpc);
            else builder.Close(m.ThreadId, RuntimeWorkKind.ExceptionDispatch, m.Qpc);
        return builder.TotalMs(RuntimeWorkKind.ExceptionDispatch);
    }
}
