using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// `esp diff` of a benchmark recording against a recording of another program (`esp record -- dotnet esp.dll ...`,
/// a real .NET program without runs): every row is on one side only, nothing is compared, and the exit code says so.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class DiffNothingComparedTests(RecordedBenchmark recorded)
{
    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    [Fact]
    public async Task Diff_against_a_trace_without_runs_exits_1_and_says_nothing_was_compared()
    {
        var dir = Repo.NewTempDir("diff-foreign");
        try
        {
            var (exit, foreign, _) = await Recording.RecordAsync(Path.Combine(dir, "foreign"),
                ["--", "dotnet", Esp, "stacktags", "check", Path.Combine(Repo.Root, "stacktags", "Serializers.stacktags")]);
            Assert.Equal(0, exit);

            var forward = ProcessRunner.Dotnet(Esp, "diff", recorded.Folder.Path, foreign.Path);
            Assert.True(forward.ExitCode == ExitCodes.Failed, $"exit {forward.ExitCode}: {forward.StdErr}");
            var rows = RecordedBenchmark.Serializers.Length * 2; // serialize and deserialize, one N
            Assert.Contains($"warning: nothing to compare: no serializer, operation and object count has runs in both traces ({rows} only in the baseline, 0 only in the trace)",
                forward.Unwrapped, StringComparison.Ordinal);
            Assert.Contains("Only in one trace", forward.StdOut, StringComparison.Ordinal);

            var backward = ProcessRunner.Dotnet(Esp, "diff", foreign.Path, recorded.Folder.Path, "--format", "json");
            Assert.Equal(ExitCodes.Failed, backward.ExitCode);
            Assert.Contains($"(0 only in the baseline, {rows} only in the trace)", backward.StdOut, StringComparison.Ordinal);

            // The same recording on both sides compares every row: exit 0.
            Assert.Equal(ExitCodes.Ok, ProcessRunner.Dotnet(Esp, "diff", recorded.Folder.Path, recorded.Folder.Path).ExitCode);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
