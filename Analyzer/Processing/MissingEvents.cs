namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// The warnings for event families a trace has no events of, by what the session enabled: "enabled, none happened"
/// (the zeros are real), "not recorded" (the columns show nothing, not zero) or, for a trace that does not say what
/// its session enabled, "unknown whether enabled".
/// </summary>
internal static class MissingEvents
{
    public const string ClrProviderName = "Microsoft-Windows-DotNETRuntime";

    /// <param name="families">Each family without events, with whether the session enabled it (null: unknown).</param>
    public static IEnumerable<string> Lines(IEnumerable<(string Family, bool? Enabled)> families)
    {
        var list = families.ToList();
        var none = list.Where(f => f.Enabled == true).Select(f => f.Family).ToList();
        var off = list.Where(f => f.Enabled == false).Select(f => f.Family).ToList();
        var unknown = list.Where(f => f.Enabled is null).Select(f => f.Family).ToList();
        if (none.Count > 0)
            yield return $"enabled, none happened: {string.Join(", ", none)} were enabled (manifest.json) and this trace has none: those zeros are real";
        if (off.Count > 0)
            yield return $"not recorded: this trace has no events for {string.Join(", ", off)}, which the recording did not enable (manifest.json): those columns show nothing, not zero";
        if (unknown.Count > 0)
            yield return $"this trace has no events for {string.Join(", ", unknown)}; unknown whether enabled (no manifest.json says what the session enabled): those columns show nothing, not zero";
    }
}
