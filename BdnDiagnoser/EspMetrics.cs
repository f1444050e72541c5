using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;

namespace EtwSerializerProfiler.BenchmarkDotNet;

/// <summary>
/// The columns esp adds to BenchmarkDotNet's summary, as its own metrics (one descriptor each, like MemoryDiagnoser's):
/// what each means and what it is checked against is in docs/benchmarkdotnet.md.
/// </summary>
public static class EspMetrics
{
    public static readonly IMetricDescriptor CpuPerOp = new Descriptor("Esp.CpuPerOp", "CPU/op",
        "On-CPU time per operation of the benchmark's thread, from the kernel session (EventPipe's sampler without one)", "N2", UnitType.Time, "ns", 1);
    public static readonly IMetricDescriptor GcPausePerOp = new Descriptor("Esp.GcPausePerOp", "GC pause/op",
        "Time the runtime was suspended for GCs per operation (GC events)", "N2", UnitType.Time, "ns", 2);
    public static readonly IMetricDescriptor AllocatedPerOp = new Descriptor("Esp.AllocatedPerOp", "Alloc/op",
        "Bytes allocated per operation, from the runtime's allocation ticks (one per ~100 KB)", "N0", UnitType.Size, "B", 3);
    public static readonly IMetricDescriptor Reflection = new Descriptor("Esp.Reflection", "Reflection",
        "Share of the on-CPU time in reflection (the stack tags' Reflection group)", "0.0'%'", UnitType.Dimensionless, "%", 4);
    public static readonly IMetricDescriptor ExceptionsPerOp = new Descriptor("Esp.ExceptionsPerOp", "Exceptions/op",
        "Exceptions thrown per operation (the runtime's exception events)", "0.###", UnitType.Dimensionless, "Count", 5);
    public static readonly IMetricDescriptor TracingCost = new Descriptor("Esp.TracingCost", "Tracing cost",
        "Time per operation of the traced iterations against the untraced warm-ups just before them, in the same process; ? when those warm-ups had not settled", "+0.0'%';-0.0'%';0.0'%'", UnitType.Dimensionless, "%", 7);

    private sealed class Descriptor(string id, string name, string legend, string format, UnitType unitType, string unit, int priority) : IMetricDescriptor
    {
        public string Id => id;
        public string DisplayName => name;
        public string Legend => legend;
        public string NumberFormat => format;
        public UnitType UnitType => unitType;
        public string Unit => unit;
        public bool TheGreaterTheBetter => false;
        public int PriorityInCategory => priority;
        public bool GetIsAvailable(Metric metric) => true;
    }
}
