using System.Collections.Concurrent;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace EtwSerializerProfiler.BenchmarkDotNet;

/// <summary>
/// "Top cause": the verdict's first cause and its share of the benchmark's time. A metric holds a number only, so
/// this is a column of its own, which <see cref="EspDiagnoserAttribute"/> and <see cref="EspConfig.AddEsp"/> add.
/// BenchmarkDotNet keeps one diagnoser per type, so the answers live here, by case, not in a diagnoser instance.
/// </summary>
public sealed class TopCauseColumn : IColumn
{
    public static readonly TopCauseColumn Instance = new();
    private static readonly ConcurrentDictionary<BenchmarkCase, string> Causes = new();

    internal static void Set(BenchmarkCase benchmark, string? cause) => Causes[benchmark] = cause ?? "?";

    public string Id => "Esp.TopCause";
    public string ColumnName => "Top cause";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Metric;
    public int PriorityInCategory => 6;
    public bool IsNumeric => false;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => "The biggest cause of the benchmark's time in its traced iterations, and its share (esp's verdict)";
    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
    public bool IsAvailable(Summary summary) => summary.BenchmarksCases.Any(Causes.ContainsKey);
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => Causes.GetValueOrDefault(benchmarkCase, "?");
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);
}

/// <summary>esp on a config: the diagnoser and its text column (<c>config.AddEsp()</c>).</summary>
public static class EspConfig
{
    /// <param name="config">The config to add to.</param>
    /// <param name="kernelSession">False: EventPipe alone, no perf (<see cref="EspDiagnoser(bool)"/>).</param>
    public static ManualConfig AddEsp(this ManualConfig config, bool kernelSession = true)
    {
        ArgumentNullException.ThrowIfNull(config);
        return config.AddDiagnoser(new EspDiagnoser(kernelSession)).AddColumn(TopCauseColumn.Instance);
    }
}

/// <summary><c>[EspDiagnoser]</c> on a benchmark class: esp's columns in the summary, a trace folder per benchmark.</summary>
/// <param name="kernelSession">False: EventPipe alone, no perf (<see cref="EspDiagnoser(bool)"/>).</param>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
public sealed class EspDiagnoserAttribute(bool kernelSession = true) : Attribute, IConfigSource
{
    public IConfig Config { get; } = ManualConfig.CreateEmpty().AddEsp(kernelSession);
}
