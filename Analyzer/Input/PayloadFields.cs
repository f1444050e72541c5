using System.Globalization;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// Numeric payload fields of events the analyzer reads by name (run events, BenchmarkDotNet's engine events). A
/// damaged event can decode to anything: TraceEvent then hands back a string saying the lookup failed
/// ("&lt;&lt;&lt;EXCEPTION_DURING_VALUE_LOOKUP ...&gt;&gt;&gt;") or a number out of range, and such a field reads as
/// missing, as a field the event does not have, not as a crash. Strings of hot events are read in place instead.
/// </summary>
internal static class PayloadFields
{
    /// <summary>The payload from byte <paramref name="offset"/> on, as UTF-16 (TraceEvent's strings): empty if shorter.</summary>
    public static unsafe ReadOnlySpan<char> Utf16From(TraceEvent e, int offset)
    {
        var bytes = e.EventDataLength - offset;
        return bytes < sizeof(char) ? default : new ReadOnlySpan<char>((byte*)e.DataStart + offset, bytes / sizeof(char));
    }

    /// <summary>
    /// The null-terminated string at the start of <paramref name="chars"/>, which moves past its terminator; false
    /// when there is no terminator (a payload cut short: the caller falls back to TraceEvent's getter).
    /// </summary>
    public static bool TakeString(ref ReadOnlySpan<char> chars, out ReadOnlySpan<char> value)
    {
        var end = chars.IndexOf('\0');
        value = end < 0 ? default : chars[..end];
        chars = end < 0 ? default : chars[(end + 1)..];
        return end >= 0;
    }

    public static int? Int32(TraceEvent e, string field) => Int32Of(e.PayloadByName(field));

    public static long? Int64(TraceEvent e, string field) => Int64Of(e.PayloadByName(field));

    public static double? Double(TraceEvent e, string field) => DoubleOf(e.PayloadByName(field));

    internal static int? Int32Of(object? value) => Convert(value, static (v, c) => v.ToInt32(c));

    internal static long? Int64Of(object? value) => Convert(value, static (v, c) => v.ToInt64(c));

    internal static double? DoubleOf(object? value) => Convert(value, static (v, c) => v.ToDouble(c));

    private static T? Convert<T>(object? value, Func<IConvertible, IFormatProvider, T> convert) where T : struct
    {
        if (value is not IConvertible number || value is string) return null;
        try { return convert(number, CultureInfo.InvariantCulture); }
        catch (Exception ex) when (ex is FormatException or InvalidCastException or OverflowException) { return null; }
    }
}
