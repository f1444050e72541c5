using System.Text;
using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Scenarios;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Benchmark.Verification;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Benchmark;

public sealed class ScenarioTests
{
    [Theory]
    [InlineData("base64-linebreaks", "\r\n")]
    [InlineData("base64-indented-linebreaks", "\r\n  ")]
    public void Base64_scenarios_wrap_every_payload_at_73_chars_and_the_xml_still_round_trips(string name, string separator)
    {
        var scenario = ScenarioCatalog.Parse(name)!;
        var original = DataFactory.CreateBookShelf(5, payloadBytes: 200); // 268 base64 chars: 3 breaks per value
        foreach (var serializer in SerializerCatalog.All.Where(s => s.Name is "DataContract" or "XmlSerializer"))
        {
            Assert.Null(scenario.UnsupportedReason(serializer));
            using var buffer = new MemoryStream();
            serializer.Serialize(original, buffer);
            var rewritten = scenario.Rewrite(buffer.ToArray());
            var xml = Encoding.UTF8.GetString(rewritten);
            Assert.Equal(5 * 3, CountOf(xml, separator) - CountOf(Encoding.UTF8.GetString(buffer.ToArray()), separator));
            var firstLine = xml[(xml.IndexOf("<Payload>", StringComparison.Ordinal) + "<Payload>".Length)..];
            Assert.Equal(Base64LineBreaksScenario.LineLength, firstLine.IndexOf(separator, StringComparison.Ordinal));
            var back = serializer.Deserialize(typeof(BookShelf), new MemoryStream(rewritten));
            Assert.StartsWith("ok", RoundTripVerifier.Verify(original, back).Summary, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Base64_scenarios_skip_non_xml_serializers_and_refuse_input_without_payloads()
    {
        var scenario = ScenarioCatalog.Parse("base64-linebreaks")!;
        Assert.Contains("Protobuf", scenario.UnsupportedReason(SerializerCatalog.All.Single(s => s.Name == "Google.Protobuf")), StringComparison.Ordinal);
        Assert.NotNull(scenario.UnsupportedReason(SerializerCatalog.All.Single(s => s.Name == "DataContract.Binary")));
        Assert.Throws<InvalidOperationException>(() => scenario.Rewrite(Encoding.UTF8.GetBytes("<BookShelf><Books/></BookShelf>")));
    }

    [Theory]
    [InlineData(new[] { "--scenario", "base64" }, "--scenario must be one of none|base64-linebreaks|base64-indented-linebreaks")]
    [InlineData(new[] { "--scenario", "base64-linebreaks" }, "--payload-bytes 73 or more")]
    [InlineData(new[] { "--scenario", "base64-linebreaks", "--payload-bytes", "100", "--data", "large" }, "--data bookshelf")]
    [InlineData(new[] { "--scenario", "base64-linebreaks", "--payload-bytes", "100", "--test", "firstcall" }, "--test firstcall")]
    public void Scenario_option_errors_are_one_line_usage_errors(string[] args, string expected)
    {
        var ex = Assert.Throws<UsageException>(() => BenchmarkOptions.Parse(args));
        Assert.Contains(expected, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void No_scenario_is_the_default_and_none_is_accepted()
    {
        Assert.Null(BenchmarkOptions.Parse([]).Scenario);
        Assert.Null(BenchmarkOptions.Parse(["--scenario", "none"]).Scenario);
        Assert.Equal("base64-indented-linebreaks", BenchmarkOptions.Parse(["--scenario", "BASE64-indented-linebreaks", "--payload-bytes", "4096"]).Scenario!.Name);
    }

    private static int CountOf(string text, string part)
    {
        var count = 0;
        for (var i = text.IndexOf(part, StringComparison.Ordinal); i >= 0; i = text.IndexOf(part, i + part.Length, StringComparison.Ordinal)) count++;
        return count;
    }
}
