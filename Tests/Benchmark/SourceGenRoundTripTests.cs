using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Benchmark.Verification;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// System.Text.Json.SourceGen in the order the benchmark calls it: many small payloads first (the warm-up of N=100),
/// which switch streaming serialization to the generated fast path, then every size. Before the fix that path wrote
/// a null byte[] as "" and N=10,000 came back with empty arrays (issue 23: "Books[0].Payload: null came back as bytes").
/// </summary>
public sealed class SourceGenRoundTripTests
{
    public static TheoryData<DataKind, int, int> Cases()
    {
        var data = new TheoryData<DataKind, int, int>();
        foreach (var kind in Enum.GetValues<DataKind>())
        {
            foreach (var n in new[] { 1, 100, 10_000 })
            {
                data.Add(kind, n, 0);
                if (kind == DataKind.BookShelf) data.Add(kind, n, 16);
            }
        }
        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void RoundTrip_IsOk_AfterTheFastPathTookOver(DataKind kind, int count, int payloadBytes)
    {
        var serializer = SerializerCatalog.All.Single(s => s.Name == "System.Text.Json.SourceGen");
        var small = DataFactory.Create(kind, 100, payloadBytes);
        for (var i = 0; i < 30; i++) Serialize(serializer, small);

        var original = DataFactory.Create(kind, count, payloadBytes);
        // The first call at a new size still runs the fast path; later ones may not: both must round-trip.
        for (var call = 0; call < 2; call++)
        {
            var bytes = Serialize(serializer, original);
            var back = serializer.Deserialize(original.GetType(), new MemoryStream(bytes, writable: false));
            var summary = RoundTripVerifier.Verify(original, back).Summary;
            Assert.True(summary.StartsWith("ok", StringComparison.Ordinal), $"{kind} N={count} payload={payloadBytes} call {call}: {summary}");
        }
    }

    [Fact]
    public void NullPayload_IsNotWrittenAsAnEmptyString()
    {
        var serializer = SerializerCatalog.All.Single(s => s.Name == "System.Text.Json.SourceGen");
        var small = DataFactory.CreateBookShelf(100);
        for (var i = 0; i < 30; i++) Serialize(serializer, small);

        var json = System.Text.Encoding.UTF8.GetString(Serialize(serializer, DataFactory.CreateBookShelf(10_000)));

        Assert.DoesNotContain("\"Payload\":\"\"", json, StringComparison.Ordinal);
    }

    private static byte[] Serialize(Serializer serializer, object data)
    {
        using var stream = new MemoryStream();
        serializer.Serialize(data, stream);
        return stream.ToArray();
    }
}
