using System.Text.Json;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// A .NET Framework trace will not have run the serializers a .NET 10 one ran (BinaryFormatter runs only there; the
/// user may also pick other --serializers per side). Two real recordings whose serializer sets overlap in one, each
/// with one of its own, diffed with the real `esp diff`: the common serializer is compared, the others are listed.
/// </summary>
[EndToEnd]
public sealed class DifferentSerializerSetsTests : IDisposable
{
    private const string Common = "Google.Protobuf";
    private readonly string _dir = Repo.NewTempDir("sets");

    [Fact]
    public void The_common_serializers_are_compared_and_the_rest_are_listed_with_their_reasons()
    {
        string[] run = ["--n", "2000", "--runs", "3", "--quiet"];
        var (baselineExit, baseline) = Recording.Record(Path.Combine(_dir, "baseline"), [.. run, "--serializers", $"{Common},System.Text.Json"]);
        // BinaryFormatter cannot run on .NET 10: the trace's results.json says why, and no side has rows for it.
        var (traceExit, trace) = Recording.Record(Path.Combine(_dir, "trace"), [.. run, "--serializers", $"{Common},Newtonsoft.Json,BinaryFormatter"]);
        Assert.Equal([0, 0], new[] { baselineExit, traceExit });
        var esp = Path.Combine(Repo.BinDir, "esp.dll");

        var json = ProcessRunner.Dotnet(esp, "diff", baseline.Path, trace.Path, "--format", "json");
        Assert.Equal(0, json.ExitCode);
        var root = JsonDocument.Parse(json.StdOut).RootElement;
        var sets = root.GetProperty("serializers");
        Assert.Equal([Common], Names(sets.GetProperty("compared")));
        Assert.Equal(["System.Text.Json"], Names(sets.GetProperty("onlyInBaseline")));
        Assert.Equal(["Newtonsoft.Json"], Names(sets.GetProperty("onlyInTrace")));
        Assert.Equal(["BinaryFormatter"], Names(sets.GetProperty("notRun")));
        var rows = root.GetProperty("rows").EnumerateArray().ToList();
        // Compared: Google.Protobuf serialize and deserialize at N=2000, with a delta and a noise verdict.
        var compared = rows.Where(r => r.GetProperty("presence").GetString() == "both").ToList();
        Assert.Equal(2, compared.Count);
        Assert.All(compared, r =>
        {
            Assert.Equal(Common, r.GetProperty("serializer").GetString());
            Assert.Equal(JsonValueKind.Number, r.GetProperty("metrics").GetProperty("durationMs").GetProperty("delta").ValueKind);
        });
        // Listed, never dropped: each one-sided serializer keeps its runs and no delta.
        Assert.Equal(2, rows.Count(r => r.GetProperty("presence").GetString() == "onlyInBaseline" && r.GetProperty("serializer").GetString() == "System.Text.Json"));
        Assert.Equal(2, rows.Count(r => r.GetProperty("presence").GetString() == "onlyInTrace" && r.GetProperty("serializer").GetString() == "Newtonsoft.Json"));
        Assert.All(rows.Where(r => r.GetProperty("presence").GetString() != "both"),
            r => Assert.Equal(JsonValueKind.Null, r.GetProperty("metrics").GetProperty("durationMs").GetProperty("delta").ValueKind));
        Assert.Contains(root.GetProperty("trace").GetProperty("unsupported").EnumerateArray(),
            u => u.GetProperty("serializer").GetString() == "BinaryFormatter" && u.GetProperty("reason").GetString()!.Contains(".NET 9+", StringComparison.Ordinal));

        var text = ProcessRunner.Dotnet(esp, "diff", baseline.Path, trace.Path);
        Assert.Equal(0, text.ExitCode);
        Assert.Contains($"serializers differ: compared 1 ({Common}); only in baseline 1 (System.Text.Json); only in trace 1 (Newtonsoft.Json); not run in either 1 (BinaryFormatter)", text.Unwrapped, StringComparison.Ordinal);
        var duration = Table(text.Unwrapped, "serialize, baseline → trace");
        Assert.Contains(Common, duration, StringComparison.Ordinal);
        Assert.DoesNotContain("System.Text.Json", duration, StringComparison.Ordinal);
        Assert.DoesNotContain("Newtonsoft.Json", duration, StringComparison.Ordinal);
        var oneSided = Table(text.Unwrapped, "Only in one trace");
        Assert.Contains("System.Text.Json", oneSided, StringComparison.Ordinal);
        Assert.Contains("Newtonsoft.Json", oneSided, StringComparison.Ordinal);
        Assert.Contains("not run in trace: BinaryFormatter was removed from .NET 9+", oneSided, StringComparison.Ordinal);
    }

    private static string[] Names(JsonElement array) => array.EnumerateArray().Select(e => e.GetString()!).ToArray();

    /// <summary>One table of the text output: from its title to the next blank line.</summary>
    private static string Table(string output, string title)
    {
        var start = output.IndexOf("\n" + title, StringComparison.Ordinal);
        Assert.True(start >= 0, $"no table '{title}' in:\n{output}");
        var end = output.IndexOf("\n\n", start, StringComparison.Ordinal);
        return end < 0 ? output[start..] : output[start..end];
    }

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }
}
