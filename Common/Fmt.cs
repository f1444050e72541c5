using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>How numbers look in every table: invariant culture, precision by magnitude for milliseconds.</summary>
public static class Fmt
{
    public static string Ms(double ms) => ms.ToString(ms >= 100 ? "F1" : ms >= 1 ? "F2" : "F3", CultureInfo.InvariantCulture);
    public static string Num(double v, string format = "F1") => v.ToString(format, CultureInfo.InvariantCulture);
    public static string Pct(double fraction) => (fraction * 100).ToString("F0", CultureInfo.InvariantCulture) + "%";
    public static string Mb(long bytes) => (bytes / (1024.0 * 1024.0)).ToString("F2", CultureInfo.InvariantCulture);
    public static string Int(long v) => v.ToString(CultureInfo.InvariantCulture);
}
