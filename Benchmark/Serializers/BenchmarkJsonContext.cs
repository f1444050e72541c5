using System.Text.Json.Serialization;
using EtwSerializerProfiler.Benchmark.Data;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>Compile-time System.Text.Json metadata for the three benchmark data types.</summary>
/// <remarks>
/// WhenWritingNull, because the generated fast path (which streaming serialization switches to once it has seen
/// small payloads) writes a byte[] with <c>writer.WriteBase64String(name, value.Payload)</c>: a null array becomes an
/// empty span and is written as <c>""</c>, which reads back as an empty array, while the metadata path writes
/// <c>null</c>. With nulls omitted the generator guards the call (<c>if (payload is not null)</c>), so both paths
/// write the same JSON and null comes back as null (issue 23; SourceGenRoundTripTests).
/// </remarks>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(BookShelf))]
[JsonSerializable(typeof(LargeRecordList))]
[JsonSerializable(typeof(SharedStringShelf))]
internal sealed partial class BenchmarkJsonContext : JsonSerializerContext
{
}
