using EtwSerializerProfiler.Analyzer.Input;

namespace EtwSerializerProfiler.Tests.Analyzer.Input;

/// <summary>
/// Numeric payload fields read by name: numbers of any width convert, and what a damaged event decodes to (TraceEvent's
/// lookup-failure string, an out-of-range number, bytes) reads as missing. A clean-clone CI run's byte-flipped trace
/// once stopped `esp analyze` with a FormatException on exactly that string.
/// </summary>
public sealed class PayloadFieldsTests
{
    private const string LookupFailed = "<<<EXCEPTION_DURING_VALUE_LOOKUP ArgumentOutOfRangeException>>>";

    [Fact]
    public void Numbers_of_any_width_convert()
    {
        Assert.Equal(42, PayloadFields.Int32Of(42L));
        Assert.Equal(7, PayloadFields.Int32Of((ushort)7));
        Assert.Equal(5_000_000_000L, PayloadFields.Int64Of(5_000_000_000UL));
        Assert.Equal(12.5, PayloadFields.DoubleOf(12.5f));
        Assert.Equal(3.0, PayloadFields.DoubleOf(3));
    }

    [Fact]
    public void What_a_damaged_event_decodes_to_reads_as_missing()
    {
        Assert.Null(PayloadFields.Int32Of(LookupFailed));
        Assert.Null(PayloadFields.Int64Of(LookupFailed));
        Assert.Null(PayloadFields.DoubleOf(LookupFailed));
        Assert.Null(PayloadFields.Int32Of("12")); // a string field is not a number field, even when it reads like one
        Assert.Null(PayloadFields.Int32Of(5_000_000_000L));
        Assert.Null(PayloadFields.Int64Of(ulong.MaxValue));
        Assert.Null(PayloadFields.Int32Of(new byte[] { 1, 2 }));
        Assert.Null(PayloadFields.Int32Of(null));
    }

    [Fact]
    public void Strings_are_taken_up_to_each_terminator_and_a_cut_one_is_refused()
    {
        ReadOnlySpan<char> chars = "System\0Read\0\0Cut";
        Assert.True(PayloadFields.TakeString(ref chars, out var ns));
        Assert.Equal("System", ns.ToString());
        Assert.True(PayloadFields.TakeString(ref chars, out var name));
        Assert.Equal("Read", name.ToString());
        Assert.True(PayloadFields.TakeString(ref chars, out var empty));
        Assert.True(empty.IsEmpty);
        Assert.False(PayloadFields.TakeString(ref chars, out _));
        Assert.True(chars.IsEmpty);
    }
}
