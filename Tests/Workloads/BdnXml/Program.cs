using System.Xml.Serialization;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using Perfolizer.Horology;

namespace EtwSerializerProfiler.Workloads;

/// <summary>A plain class, read back from XML.</summary>
public sealed class Order
{
    public int Id { get; set; }
    public string Customer { get; set; } = "";
    public List<Line> Lines { get; set; } = [];
}

public sealed class Line
{
    public string Sku { get; set; } = "";
    public int Quantity { get; set; }
    public decimal Price { get; set; }
}

/// <summary>
/// The reported case: BenchmarkDotNet's EventPipeProfiler (CPU sampling) with its default extra run, so the trace
/// holds a second, profiled run of every iteration whose results BenchmarkDotNet discards. A short job (BDN_ITERATIONS
/// measured iterations of 50 ms) keeps the test under a minute of benchmarking; the full JSON report is the truth.
/// </summary>
[EventPipeProfiler(EventPipeProfile.CpuSampling)]
[JsonExporterAttribute.Full]
public class XmlRead : XmlReadBase;

/// <summary>
/// The same benchmark profiled in its only run (performExtraBenchmarksRun: false): the trace holds exactly the
/// iterations BenchmarkDotNet's summary is computed from, so the summary is the truth for the trace (the test's mode).
/// </summary>
[Config(typeof(SameRunConfig))]
[JsonExporterAttribute.Full]
public class XmlReadSameRun : XmlReadBase
{
    // The attribute has no such parameter in 0.15; the diagnoser's constructor has.
    private sealed class SameRunConfig : ManualConfig
    {
        public SameRunConfig() => AddDiagnoser(new EventPipeProfiler(EventPipeProfile.CpuSampling, performExtraBenchmarksRun: false));
    }
}

public abstract class XmlReadBase
{
    private readonly XmlSerializer _serializer = new(typeof(Order));
    private byte[] _xml = [];

    [GlobalSetup]
    public void Setup()
    {
        var order = new Order { Id = 7, Customer = "Contoso" };
        for (var i = 0; i < 200; i++) order.Lines.Add(new Line { Sku = "SKU-" + i, Quantity = i % 7 + 1, Price = i * 1.25m });
        using var stream = new MemoryStream();
        _serializer.Serialize(stream, order);
        _xml = stream.ToArray();
    }

    [Benchmark]
    public Order Read() => (Order)_serializer.Deserialize(new MemoryStream(_xml))!;
}

public static class Program
{
    public static int Main(string[] args)
    {
        // args: the artifacts folder, then "same-run" for XmlReadSameRun. Iterations and their length are small on
        // purpose (a test, not a study).
        var iterations = int.TryParse(Environment.GetEnvironmentVariable("BDN_ITERATIONS"), out var n) ? n : 15;
        var job = Job.Default.WithLaunchCount(1).WithWarmupCount(3).WithIterationCount(iterations)
            .WithIterationTime(TimeInterval.FromMilliseconds(50)).WithId("Short");
        var config = DefaultConfig.Instance.AddJob(job).WithArtifactsPath(args.Length > 0 ? args[0] : "BenchmarkDotNet.Artifacts");
        var summary = args.Length > 1 && args[1] == "same-run" ? BenchmarkRunner.Run<XmlReadSameRun>(config) : BenchmarkRunner.Run<XmlRead>(config);
        return summary.Reports.All(r => r.Success) && !summary.HasCriticalValidationErrors ? 0 : 1;
    }
}
