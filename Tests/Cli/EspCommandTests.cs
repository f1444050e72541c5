using System.Text.Json;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Cli;

/// <summary>The esp tool as a process: exit codes and one-line errors a script can rely on.</summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class EspCommandTests(RecordedBenchmark recorded)
{
    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    [Fact]
    public void The_committed_stack_tags_file_is_up_to_date_with_the_serializer_list()
    {
        var committed = File.ReadAllText(Path.Combine(Repo.Root, StackTagsVerb.RepoFile));
        Assert.True(committed == StackTagsVerb.Generate(), "stacktags/Serializers.stacktags is stale: run `dotnet run --project Cli -c Release -- stacktags generate`");
    }

    [Fact]
    public void Analyze_prints_a_table_per_operation_and_writes_json_on_request()
    {
        var text = ProcessRunner.Dotnet(Esp, "analyze", recorded.Folder.Path);
        Assert.True(text.ExitCode == 0, text.StdErr);
        Assert.Contains("serialize: per serializer", text.StdOut, StringComparison.Ordinal);
        Assert.Contains("deserialize: per serializer", text.StdOut, StringComparison.Ordinal);

        var json = Path.Combine(Path.GetTempPath(), $"a-{Guid.NewGuid():N}.json");
        var r = ProcessRunner.Dotnet(Esp, "analyze", recorded.Folder.Path, "--format", "json", "--out", json, "--serializers", "reflection");
        Assert.Equal(0, r.ExitCode);
        var doc = System.Text.Json.JsonDocument.Parse(File.ReadAllText(json)).RootElement;
        Assert.All(doc.GetProperty("runs").EnumerateArray(), run => Assert.Equal("Reflection", run.GetProperty("serializer").GetString()));
        File.Delete(json);
    }

    [Fact]
    public void Top_lists_hot_methods()
    {
        var r = ProcessRunner.Dotnet(Esp, "analyze", recorded.Folder.Path, "--serializers", "Reflection", "--top", "5");
        Assert.Equal(0, r.ExitCode);
        // One table per serializer, operation and N.
        Assert.Matches(@"Reflection deserialize N=[\d,]+: top 5 methods", r.StdOut);
    }

    [Theory]
    [InlineData(ExitCodes.Usage, "frobnicate")]
    [InlineData(ExitCodes.Usage, "analyze", "--format", "yaml", "x")]
    [InlineData(ExitCodes.Usage, "analyze", "--wat", "1", "x")]
    [InlineData(ExitCodes.BadInput, "analyze", "/no/such/trace")]
    [InlineData(ExitCodes.Usage, "record", "--profile", "nope")]
    [InlineData(ExitCodes.Usage, "analyze", "x", "--stacktags-only")]
    [InlineData(ExitCodes.Usage, "analyze", "x", "--stacktags", "/no/such.stacktags")]
    [InlineData(ExitCodes.Usage, "diff", "a", "b", "--stacktags", "/no/such.stacktags", "--stacktags-only")]
    public void Errors_are_one_line_with_a_distinct_exit_code(int expected, params string[] args)
    {
        var r = ProcessRunner.Dotnet(Esp, args);
        Assert.Equal(expected, r.ExitCode);
        Assert.Single(r.StdErr.Trim().Split('\n'));
        Assert.DoesNotContain("   at ", r.StdErr, StringComparison.Ordinal);
    }

    [Fact]
    public void A_serializer_filter_that_matches_nothing_names_what_the_trace_has()
    {
        var r = ProcessRunner.Dotnet(Esp, "analyze", recorded.Folder.Path, "--serializers", "Nope");
        Assert.Equal(ExitCodes.Failed, r.ExitCode);
        Assert.Matches(@"warning: no runs of Nope in this trace; it has runs of [^\n]*Reflection", r.StdOut);
    }

    [Fact]
    public void Stacktags_check_names_a_missing_file_missing_not_stale()
    {
        var r = ProcessRunner.Dotnet(Esp, "stacktags", "check", "/no/such.stacktags");
        Assert.Equal(ExitCodes.Failed, r.ExitCode);
        Assert.Equal("/no/such.stacktags is missing: run `esp stacktags generate`", r.StdErr.Trim());
    }

    [Fact]
    public void A_users_stack_tags_are_added_to_the_builtin_ones_and_unmatched_tags_are_reported()
    {
        var systemWide = Path.Combine(Repo.Root, "stacktags", "WpaSamples", "SystemWide.stacktags");
        var r = ProcessRunner.Dotnet(Esp, "analyze", recorded.Folder.Path, "--stacktags", systemWide, "--tables", "all");
        Assert.True(r.ExitCode == 0, r.StdErr);
        Assert.Contains($"stack tags: {Path.Combine(recorded.Folder.Path, "Serializers.stacktags")} + {systemWide}", r.StdOut, StringComparison.Ordinal);
        Assert.Contains($"warning: stack tags {systemWide}: ", r.StdOut, StringComparison.Ordinal);

        // Added, not replacing: the built-in tags give the same reflection shares and the same findings as without the
        // user's file (a replacing file once dropped the Reflection serializer's reflection share to 0% and 3 findings to 1).
        // Compared with the same trace's own analysis, not a threshold: whether the reflection finding fires depends on load.
        var (with, without) = (AnalyzeJson("--stacktags", systemWide), AnalyzeJson());
        string Shares(JsonElement doc) => string.Join("; ", doc.GetProperty("serializers").EnumerateArray()
            .Select(x => $"{x.GetProperty("serializer").GetString()} {x.GetProperty("operation").GetString()} {Share(x.GetProperty("reflectionShare"))}"));
        // To 9 digits: the user's tags split the rest of the time into more tags, and a sum in another order differs in the last bits.
        static string Share(JsonElement share) => share.ValueKind == JsonValueKind.Number ? share.GetDouble().ToString("F9", System.Globalization.CultureInfo.InvariantCulture) : share.ToString();
        string Findings(JsonElement doc) => string.Join("; ", doc.GetProperty("findings").EnumerateArray()
            .Select(x => $"{x.GetProperty("kind").GetString()} {x.GetProperty("serializer").GetString()}"));
        Assert.Equal(Shares(without), Shares(with));
        Assert.Equal(Findings(without), Findings(with));
        Assert.Contains(without.GetProperty("serializers").EnumerateArray(), x => x.GetProperty("serializer").GetString() == "Reflection"
            && x.GetProperty("reflectionShare").ValueKind == JsonValueKind.Number && x.GetProperty("reflectionShare").GetDouble() > 0);
    }

    private JsonElement AnalyzeJson(params string[] extra)
    {
        var json = Path.Combine(Path.GetTempPath(), $"analyze-{Guid.NewGuid():N}.json");
        try
        {
            var r = ProcessRunner.Dotnet(Esp, ["analyze", recorded.Folder.Path, "--format", "json", "--out", json, .. extra]);
            Assert.True(r.ExitCode == 0, r.StdErr);
            return JsonDocument.Parse(File.ReadAllText(json)).RootElement.Clone();
        }
        finally { File.Delete(json); }
    }

    [Fact]
    public void Malformed_stack_tags_name_the_file_and_line()
    {
        var path = Path.Combine(Path.GetTempPath(), $"bad-{Guid.NewGuid():N}.stacktags");
        File.WriteAllText(path, "<?xml version=\"1.0\"?>\n<Tag Name=\"\">\n  <Tag Name=\"A\" Priority=\"high\">\n  </Tag>\n</Tag>\n");
        var r = ProcessRunner.Dotnet(Esp, "analyze", recorded.Folder.Path, "--stacktags", path);
        Assert.Equal(ExitCodes.BadInput, r.ExitCode);
        Assert.Contains(path + "(3)", r.StdErr, StringComparison.Ordinal);
        File.Delete(path);
    }
}
