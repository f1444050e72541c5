using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>How numbers look in every table: invariant culture, precision by magnitude for milliseconds.</summary>
public static class Fmt
{
    /// <summary>A path as a progress line shows it: relative to the current folder when inside it (traces/20261126-180514/...), else whole.</summary>
    public static string DisplayPath(string path)
    {
        var full = System.IO.Path.GetFullPath(path);
        var here = System.IO.Path.GetFullPath(Directory.GetCurrentDirectory()).TrimEnd(System.IO.Path.DirectorySeparatorChar) + System.IO.Path.DirectorySeparatorChar;
        return full.StartsWith(here, StringComparison.Ordinal) ? full.Substring(here.Length) : path;
    }

    public static string Ms(double ms) => ms.ToString(ms >= 100 ? "F1" : ms >= 1 ? "F2" : "F3", CultureInfo.InvariantCulture);
    public static string Num(double v, string format = "F1") => v.ToString(format, CultureInfo.InvariantCulture);
    /// <summary>"12%", and "0%" for a small negative share (not "-0%").</summary>
    public static string Pct(double fraction)
    {
        var text = (fraction * 100).ToString("F0", CultureInfo.InvariantCulture);
        return (text == "-0" ? "0" : text) + "%";
    }
    public static string Mb(long bytes) => (bytes / (1024.0 * 1024.0)).ToString("F2", CultureInfo.InvariantCulture);
    public static string Int(long v) => v.ToString(CultureInfo.InvariantCulture);

    /// <summary>
    /// "+1.3", "-0.4", and "0.0" for anything that rounds to zero: a two-part format ("+0.0;-0.0") printed "-+0.0"
    /// for a small negative value.
    /// </summary>
    public static string Signed(double v, int decimals = 1)
    {
        var digits = decimals == 0 ? "0" : "0." + new string('0', decimals);
        return v.ToString($"+{digits};-{digits};{digits}", CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// <paramref name="magnitude"/> (|v| as a table prints it) with v's sign, and none when it prints as zero: "+0.000"
    /// beside an interval that holds 0 read as a gain. For figures whose precision is not fixed (<see cref="Ms"/>).
    /// </summary>
    public static string Signed(double v, string magnitude) =>
        !magnitude.Any(c => c is >= '1' and <= '9') ? magnitude : (v < 0 ? "-" : "+") + magnitude;

    /// <summary>A fraction in signed percent: "+12.5%", "-0.4%", "0.0%" (<see cref="Signed"/>).</summary>
    public static string SignedPercent(double fraction, int decimals = 1) => Signed(fraction * 100, decimals) + "%";

    /// <summary>A run's N (object count) in a table: "-" for 0, which means the case has none (a BenchmarkDotNet case without an N parameter, a marked run without a size).</summary>
    public static string Objects(int n) => n == 0 ? "-" : Int(n);

    /// <summary>" N=10,000" after a case's name, nothing when it has no N (0).</summary>
    public static string NSuffix(int n) => n == 0 ? "" : " N=" + n.ToString("N0", CultureInfo.InvariantCulture);
}
