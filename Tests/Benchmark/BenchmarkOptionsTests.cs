using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Benchmark;

public sealed class BenchmarkOptionsTests
{
    [Fact]
    public void Defaults_are_the_quick_set()
    {
        var o = BenchmarkOptions.Parse([]);
        Assert.Equal(TestMode.Combined, o.Test);
        Assert.Equal(BenchmarkOptions.DefaultCounts, o.Counts);
        Assert.Equal(5, o.Runs); // measured runs; the warm-up comes on top (WarmupPartsTests)
        Assert.Equal(EtwSerializerProfiler.Benchmark.Serializers.SerializerCatalog.All, o.Serializers);
        Assert.True(o.ShouldVerify(10_000));
        Assert.False(o.ShouldVerify(10_001));
    }

    [Fact]
    public void Options_parse_with_suffixes_and_case_insensitive_names()
    {
        var o = BenchmarkOptions.Parse(["--test", "Deserialize", "--n", "1,10k,1m", "--runs=5", "--serializers", "newtonsoft.json,PROTOBUF".Replace("PROTOBUF", "google.protobuf"),
            "--data", "sharedstrings", "--threads", "4", "--payload-bytes", "16", "--no-verify"]);
        Assert.Equal(TestMode.Deserialize, o.Test);
        Assert.Equal([1, 10_000, 1_000_000], o.Counts);
        Assert.Equal(5, o.Runs);
        Assert.Equal(["Newtonsoft.Json", "Google.Protobuf"], o.Serializers.Select(s => s.Name));
        Assert.Equal(DataKind.SharedStrings, o.Data);
        Assert.Equal(4, o.Threads);
        Assert.Equal(16, o.PayloadBytes);
        Assert.False(o.ShouldVerify(1));
    }

    [Fact]
    public void An_unknown_serializer_is_an_error_listing_the_valid_ones()
    {
        var ex = Assert.Throws<UsageException>(() => BenchmarkOptions.Parse(["--serializers", "Jil"]));
        Assert.Contains("unknown serializer 'Jil'", ex.Message, StringComparison.Ordinal);
        Assert.Contains("Newtonsoft.Json", ex.Message, StringComparison.Ordinal);
        Assert.Contains("Reflection", ex.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(new[] { "--runs", "0" }, "--runs")]
    [InlineData(new[] { "--runs", "x" }, "--runs")]
    [InlineData(new[] { "--n", "ten" }, "--n")]
    [InlineData(new[] { "--test", "fast" }, "--test")]
    [InlineData(new[] { "--bogus", "1" }, "unknown option --bogus")]
    [InlineData(new[] { "--threads" }, "needs a value")]
    [InlineData(new[] { "stray" }, "unexpected argument")]
    public void Bad_options_are_one_line_errors(string[] args, string expected)
    {
        var ex = Assert.Throws<UsageException>(() => BenchmarkOptions.Parse(args));
        Assert.Contains(expected, ex.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', ex.Message);
    }

    [Fact]
    public void Appcontext_is_repeatable_and_needs_a_boolean()
    {
        var o = BenchmarkOptions.Parse(["--appcontext", "A.B=false", "--appcontext=C=True"]);
        Assert.Equal([KeyValuePair.Create("A.B", false), KeyValuePair.Create("C", true)], o.AppContext);
        Assert.Empty(BenchmarkOptions.Parse([]).AppContext);
        Assert.Contains("true or false", Assert.Throws<UsageException>(() => BenchmarkOptions.Parse(["--appcontext", "A=off"])).Message, StringComparison.Ordinal);
        Assert.Contains("Name=true|false", Assert.Throws<UsageException>(() => BenchmarkOptions.Parse(["--appcontext", "A"])).Message, StringComparison.Ordinal);
    }
}
