using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// `esp analyze --html --speedscope --firefox` run once on the shared recording, as a user runs it, and reused by the report
/// tests (making it takes a second pass over the trace).
/// </summary>
public sealed class GeneratedReport
{
    private static readonly Lock Gate = new();
    private static GeneratedReport? _last;

    public required string TraceFolder { get; init; }
    public required string HtmlPath { get; init; }
    public required string SpeedscopeDir { get; init; }
    public required string FirefoxPath { get; init; }
    public required string Html { get; init; }

    public static GeneratedReport Of(RecordedBenchmark recorded)
    {
        lock (Gate)
        {
            if (_last is { } last && last.TraceFolder == recorded.Folder.Path) return last;
            var dir = Repo.NewTempDir("report");
            var html = Path.Combine(dir, "report.html");
            var speedscope = Path.Combine(dir, "flames");
            var firefox = Path.Combine(dir, "trace.json.gz");
            var r = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "analyze", recorded.Folder.Path, "--html", html, "--speedscope", speedscope, "--firefox", firefox);
            Assert.True(r.ExitCode == 0, $"esp analyze --html failed ({r.ExitCode}): {r.StdErr}");
            _last = new GeneratedReport { TraceFolder = recorded.Folder.Path, HtmlPath = html, SpeedscopeDir = speedscope, FirefoxPath = firefox, Html = File.ReadAllText(html) };
            return _last;
        }
    }
}
