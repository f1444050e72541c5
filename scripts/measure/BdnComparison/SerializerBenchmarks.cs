using BenchmarkDotNet.Attributes;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Benchmark.Verification;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>
/// The benchmark's measured window (Benchmark/Runs/BenchmarkRunner.cs, SerializeRun/DeserializeRun) as a
/// BenchmarkDotNet benchmark, with the benchmark's own serializer objects and data. What the window holds:
/// <list type="bullet">
/// <item>deserialize: one Deserialize call on a MemoryStream over the serialized bytes, created outside the window.
/// BenchmarkDotNet invokes the method many times per iteration with no setup in between, so the one stream is
/// rewound inside the method (a field store, about a nanosecond against the milliseconds measured).</item>
/// <item>serialize: one Serialize call into a reused MemoryStream that was emptied outside the window (its capacity
/// kept). Here the emptying (Position = 0, SetLength(0): two field stores) is inside the method.</item>
/// </list>
/// Test data and bytes are prepared in GlobalSetup, outside every measurement, as the benchmark prepares them
/// outside its window; the result of Deserialize is returned so BenchmarkDotNet keeps it alive, as the runner does.
/// </summary>
public class SerializerBenchmarks
{
    private Serializer _serializer = null!;
    private object _data = null!;
    private Type _type = null!;
    private MemoryStream _input = null!;
    private MemoryStream _output = null!;

    [ParamsSource(nameof(SerializerNames))]
    public string Serializer { get; set; } = "";

    [ParamsSource(nameof(DataKinds))]
    public DataKind Data { get; set; }

    [ParamsSource(nameof(Counts))]
    public int N { get; set; }

    public static IEnumerable<string> SerializerNames => Selection.Current.Serializers.Select(s => s.Name);

    public static IEnumerable<DataKind> DataKinds => [Selection.Current.Data];

    public static IEnumerable<int> Counts => Selection.Current.Counts;

    [GlobalSetup]
    public void Setup()
    {
        // A fresh instance, as each benchmark process has its own: caches (contracts, generated code) start empty.
        _serializer = SerializerCatalog.Select([Serializer])[0];
        _data = DataFactory.Create(Data, N);
        _type = _data.GetType();
        _output = new MemoryStream();
        _serializer.Serialize(_data, _output);
        var bytes = _output.ToArray();
        // A serializer that loses data would be timed on a different amount of work: refuse to measure it.
        var back = _serializer.Deserialize(_type, new MemoryStream(bytes, writable: false));
        var verification = RoundTripVerifier.Verify(_data, back);
        if (!verification.Equal) throw new InvalidOperationException($"{Serializer} N={N}: round trip {verification.Summary}");
        _input = new MemoryStream(bytes, writable: false);
    }

    [Benchmark]
    public void Serialize()
    {
        _output.Position = 0;
        _output.SetLength(0);
        _serializer.Serialize(_data, _output);
    }

    [Benchmark]
    public object Deserialize()
    {
        _input.Position = 0;
        return _serializer.Deserialize(_type, _input);
    }
}
