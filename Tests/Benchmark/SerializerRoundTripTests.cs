using System.Reflection;
using System.Text;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Benchmark.Verification;

namespace EtwSerializerProfiler.Tests.Benchmark;

public sealed class SerializerRoundTripTests
{
    private const int Count = 50;

    private static readonly string[] s_expectedNames =
    [
        "Newtonsoft.Json", "System.Text.Json", "System.Text.Json.SourceGen", "DataContract", "DataContract.Binary",
        "XmlSerializer", "Google.Protobuf", "ServiceStack.Text", "YamlDotNet", "Reflection", "BinaryFormatter", "ObjectGraph",
        "protobuf-net", "MessagePack", "MessagePack.LZ4",
    ];

    public static TheoryData<string, DataKind> SupportedCases()
    {
        var data = new TheoryData<string, DataKind>();
        foreach (var serializer in SerializerCatalog.All.Where(s => s.UnsupportedReason is null))
        {
            foreach (var kind in Enum.GetValues<DataKind>())
            {
                if (serializer.UnsupportedDataReason(DataFactory.TypeOf(kind)) is null) data.Add(serializer.Name, kind);
            }
        }
        return data;
    }

    public static TheoryData<string> SupportedSerializers() => [.. SerializerCatalog.All.Where(s => s.UnsupportedReason is null).Select(s => s.Name)];

    public static TheoryData<string> AllSerializers() => [.. SerializerCatalog.All.Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(SupportedCases))]
    public void RoundTrip_ReturnsEqualData(string name, DataKind kind)
    {
        var serializer = Get(name);
        var original = Create(kind);

        var back = RoundTrip(serializer, original, out _);

        var result = RoundTripVerifier.Verify(original, back);
        Assert.True(result.Equal, $"{name} / {kind}: {string.Join(" | ", result.Differences)}");
    }

    [Theory]
    [MemberData(nameof(SupportedCases))]
    public void Deserialize_IsSafeOnConcurrentThreads(string name, DataKind kind)
    {
        var serializer = Get(name);
        var original = Create(kind);
        using var buffer = new MemoryStream();
        serializer.Serialize(original, buffer);
        var bytes = buffer.ToArray();

        var summaries = new string[8];
        Parallel.For(0, summaries.Length, new ParallelOptions { MaxDegreeOfParallelism = summaries.Length }, i =>
        {
            var back = serializer.Deserialize(DataFactory.TypeOf(kind), new MemoryStream(bytes, writable: false));
            summaries[i] = RoundTripVerifier.Verify(original, back).Summary;
        });

        Assert.All(summaries, s => Assert.StartsWith("ok", s, StringComparison.Ordinal));
    }

    [Theory]
    [MemberData(nameof(SupportedSerializers))]
    public void PrivateMembersCapability_MatchesWhetherSecretSurvives(string name)
    {
        var serializer = Get(name);
        var original = (BookShelf)Create(DataKind.BookShelf);
        Assert.Null(serializer.UnsupportedDataReason(typeof(BookShelf)));

        var back = (BookShelf)RoundTrip(serializer, original, out _);

        var survived = back.GetSecret() == original.GetSecret();
        Assert.Equal(serializer.Capabilities.HasFlag(Capabilities.PrivateMembers), survived);
        Assert.Equal(!survived, RoundTripVerifier.Verify(original, back).Dropped.Contains(RoundTripVerifier.DroppedPrivateMembers));
    }

    [Theory]
    [MemberData(nameof(SupportedSerializers))]
    public void SharedReferencesCapability_MatchesWhetherTitleStaysOneInstance(string name)
    {
        var serializer = Get(name);
        var original = (SharedStringShelf)Create(DataKind.SharedStrings);
        Assert.Equal(1, RoundTripVerifier.DistinctTitles(original));
        Assert.Null(serializer.UnsupportedDataReason(typeof(SharedStringShelf)));

        var back = (SharedStringShelf)RoundTrip(serializer, original, out _);

        var shared = RoundTripVerifier.DistinctTitles(back) == 1;
        Assert.Equal(serializer.Capabilities.HasFlag(Capabilities.SharedReferences), shared);
        Assert.Equal(!shared, RoundTripVerifier.Verify(original, back).Dropped.Contains(RoundTripVerifier.DroppedSharedReferences));
    }

    [Theory]
    [MemberData(nameof(SupportedSerializers))]
    public void BinaryCapability_MatchesWhetherOutputIsText(string name)
    {
        var serializer = Get(name);
        RoundTrip(serializer, Create(DataKind.BookShelf), out var bytes);

        Assert.Equal(serializer.Capabilities.HasFlag(Capabilities.Binary), !IsText(bytes));
    }

    [Fact]
    public void EverySerializeAndDeserializeOverride_IsNoInlining()
    {
        foreach (var type in SerializerCatalog.All.Select(s => s.GetType()))
        {
            foreach (var (method, parameters) in new[] { ("Serialize", new[] { typeof(object), typeof(Stream) }), ("Deserialize", new[] { typeof(Type), typeof(Stream) }) })
            {
                var m = type.GetMethod(method, BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly, parameters);
                Assert.True(m is not null, $"{type.Name} does not override {method}");
                Assert.True(m.MethodImplementationFlags.HasFlag(MethodImplAttributes.NoInlining), $"{type.Name}.{method} lacks [MethodImpl(MethodImplOptions.NoInlining)]");
            }
        }
    }

    [Fact]
    public void Names_AreUniqueAndComplete()
    {
        var names = SerializerCatalog.All.Select(s => s.Name).ToList();
        Assert.Equal(names.Count, names.Distinct(StringComparer.OrdinalIgnoreCase).Count());
        foreach (var expected in s_expectedNames) Assert.Contains(expected, names);
        Assert.All(SerializerCatalog.All, s => Assert.False(string.IsNullOrWhiteSpace(s.Format)));
        Assert.All(SerializerCatalog.All, s => Assert.False(string.IsNullOrWhiteSpace(s.Version)));
    }

    [Fact]
    public void BinaryFormatter_HasUnsupportedReasonOnThisRuntime()
    {
        var reason = Get("BinaryFormatter").UnsupportedReason;
        Assert.False(string.IsNullOrWhiteSpace(reason));
    }

    [Fact]
    public void XmlSerializer_ReportsDictionaryAsUnsupportedData()
    {
        var serializer = Get("XmlSerializer");
        Assert.Contains("Dictionary", serializer.UnsupportedDataReason(typeof(LargeRecordList)), StringComparison.Ordinal);
        Assert.Null(serializer.UnsupportedDataReason(typeof(BookShelf)));
        Assert.Null(serializer.UnsupportedDataReason(typeof(SharedStringShelf)));
    }

    [Fact]
    public void Verifier_ReportsDifferencesAndDrops()
    {
        var original = DataFactory.CreateBookShelf(3, payloadBytes: 4);
        Assert.Equal("ok", RoundTripVerifier.Verify(original, DataFactory.CreateBookShelf(3, payloadBytes: 4)).Summary);

        var noSecret = new BookShelf { Books = DataFactory.CreateBookShelf(3, payloadBytes: 4).Books };
        Assert.Equal("ok (drops: private members)", RoundTripVerifier.Verify(original, noSecret).Summary);

        var changed = DataFactory.CreateBookShelf(3, payloadBytes: 4);
        changed.Books[1].Payload![2] ^= 1;
        Assert.StartsWith("MISMATCH: Books[1].Payload", RoundTripVerifier.Verify(original, changed).Summary, StringComparison.Ordinal);

        var large = DataFactory.CreateLarge(3);
        var local = DataFactory.CreateLarge(3);
        local.Items[2].Created = DateTime.SpecifyKind(local.Items[2].Created, DateTimeKind.Local);
        Assert.Contains("Kind Utc came back as Local", RoundTripVerifier.Verify(large, local).Summary, StringComparison.Ordinal);
        var truncated = DataFactory.CreateLarge(3);
        truncated.Items[1].Modified = truncated.Items[1].Modified.AddTicks(1);
        Assert.Contains("sub-millisecond", RoundTripVerifier.Verify(large, truncated).Summary, StringComparison.Ordinal);

        var shared = DataFactory.CreateSharedStrings(3);
        var copies = DataFactory.CreateSharedStrings(3);
        foreach (var book in copies.Books) book.Title = new string(book.Title.AsSpan());
        Assert.Equal("ok (drops: shared references)", RoundTripVerifier.Verify(shared, copies).Summary);
    }

    private static Serializer Get(string name) => SerializerCatalog.All.Single(s => s.Name == name);

    private static object Create(DataKind kind) => DataFactory.Create(kind, Count, payloadBytes: kind == DataKind.BookShelf ? 16 : 0);

    private static object RoundTrip(Serializer serializer, object original, out byte[] bytes)
    {
        using var stream = new MemoryStream();
        serializer.Serialize(original, stream);
        Assert.True(stream.CanSeek, $"{serializer.Name}.Serialize closed the stream");
        bytes = stream.ToArray();
        Assert.NotEmpty(bytes);
        stream.Position = 0;
        var back = serializer.Deserialize(original.GetType(), stream);
        Assert.True(stream.CanRead, $"{serializer.Name}.Deserialize closed the stream");
        Assert.IsType(original.GetType(), back);
        return back;
    }

    /// <summary>Strict UTF-8 without control characters other than tab, CR and LF.</summary>
    private static bool IsText(byte[] bytes)
    {
        string text;
        try
        {
            text = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true).GetString(bytes);
        }
        catch (DecoderFallbackException)
        {
            return false;
        }
        return !text.Any(ch => char.IsControl(ch) && ch is not ('\t' or '\r' or '\n'));
    }
}
