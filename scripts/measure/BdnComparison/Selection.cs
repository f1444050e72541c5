using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>
/// What one `run` measures: the benchmark's serializers, operations, data kind and object counts. BenchmarkDotNet
/// reads parameter values from static sources on the benchmark class (<see cref="SerializerBenchmarks"/>), so the
/// command line sets this once before BenchmarkDotNet enumerates the cases. A child process of the default
/// toolchain gets the values compiled into its generated code and never reads this.
/// </summary>
public sealed record Selection(IReadOnlyList<Serializer> Serializers, IReadOnlyList<string> Operations, DataKind Data, IReadOnlyList<int> Counts)
{
    public const string Serialize = "serialize";
    public const string Deserialize = "deserialize";

    /// <summary>The comparison set, so running the project without arguments measures something useful.</summary>
    public static Selection Current { get; set; } = new(
        SerializerCatalog.Select(["Google.Protobuf", "System.Text.Json", "Newtonsoft.Json", "XmlSerializer", "DataContract"]),
        [Deserialize], DataKind.BookShelf, [10_000]);

    /// <summary>Null when the benchmark would run this serializer on this data; otherwise why it would not.</summary>
    public static string? UnsupportedReason(Serializer serializer, DataKind data) =>
        serializer.UnsupportedReason ?? serializer.UnsupportedDataReason(DataFactory.TypeOf(data));
}
