using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>One process's runtime as the pass saw it: its suspensions, its GCs and its version.</summary>
internal sealed class ProcessRuntime(int gcSettleEvery)
{
    private System.Version? _version;

    public RuntimeSuspensions Suspensions { get; } = new();
    public GcCollections Gcs { get; } = new();
    /// <summary>Its GCs on their way into the runs.</summary>
    public RunGcs RunGcs { get; } = new(gcSettleEvery);
    /// <summary>Each GC it counted, for the time line; null unless the analysis keeps marks.</summary>
    public List<GcMark>? GcMarks { get; init; }

    /// <summary>As TraceEvent's runtime analysis spells it ("V 10.0.1226.42308").</summary>
    public string? Version => _version is { } v ? $"V {v.Major}.{v.Minor}.{v.Build}.{v.Revision}" : null;

    /// <summary>The runtime's start or rundown event; a later one replaces the version only if it carries a QFE number.</summary>
    public void Started(RuntimeInformationTraceData e)
    {
        if (_version is not null && e.VMQfeNumber == 0) return;
        _version = new System.Version(e.VMMajorVersion, e.VMMinorVersion, e.VMBuildNumber, e.VMQfeNumber);
    }
}
