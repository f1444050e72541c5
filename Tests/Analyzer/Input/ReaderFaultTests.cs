using EtwSerializerProfiler.Analyzer.Input;

namespace EtwSerializerProfiler.Tests.Analyzer.Input;

/// <summary>
/// Which exceptions are the trace's fault. The case behind these tests came from the damaged-input corpus: a flipped
/// byte shortened a string payload, TraceEvent's inlined getter threw its bare "Reading past end of event" from inside
/// our handler's frame, and the analysis reported an internal error (exit 70) instead of keeping what it had read.
/// </summary>
public sealed class ReaderFaultTests
{
    private static Exception Thrown(Func<Exception> make)
    {
        try { throw make(); }
        catch (Exception ex) { return ex; }
    }

    [Fact]
    public void A_bare_exception_is_the_readers_even_when_our_frame_is_innermost()
    {
#pragma warning disable CA2201 // the point of the test: the type TraceEvent throws for a short payload
        var ex = Thrown(() => new Exception("Reading past end of event"));
#pragma warning restore CA2201
        Assert.True(ReaderFault.IsFrom(ex, ReaderFault.TraceEvent));
    }

    [Fact]
    public void Any_other_exception_thrown_by_our_code_is_a_bug_not_bad_input()
    {
        Assert.False(ReaderFault.IsFrom(Thrown(() => new InvalidOperationException("ours")), ReaderFault.TraceEvent));
        Assert.False(ReaderFault.IsFrom(Thrown(() => new FormatException("ours")), ReaderFault.TraceEvent));
    }
}
