namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>How much a finding matters; the order is the order of the findings list (most severe first); written by its <see cref="WireNameAttribute"/>.</summary>
public enum FindingSeverity
{
    /// <summary>Worth knowing, rarely the reason a serializer is slow (e.g. two exceptions in a first call).</summary>
    [WireName("info")] Info,
    /// <summary>A measured cause of slowness above its threshold.</summary>
    [WireName("warning")] Warning,
    /// <summary>The measurements themselves are not representative (Debug build, debugger attached).</summary>
    [WireName("critical")] Critical,
}
