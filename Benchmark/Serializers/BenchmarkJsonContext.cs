using System.Text.Json.Serialization;
using EtwSerializerProfiler.Benchmark.Data;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>Compile-time System.Text.Json metadata for the three benchmark data types.</summary>
[JsonSerializable(typeof(BookShelf))]
[JsonSerializable(typeof(LargeRecordList))]
[JsonSerializable(typeof(SharedStringShelf))]
internal sealed partial class BenchmarkJsonContext : JsonSerializerContext
{
}
