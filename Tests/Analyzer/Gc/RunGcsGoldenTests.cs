using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Gc;

/// <summary>
/// GCs counted into runs as the pass goes (<see cref="EtwSerializerProfiler.Analyzer.Gc.RunGcs"/>):
/// a real recording's figures may not depend on when the waiting GCs are settled, after every GC event (windows still
/// open, RunStarts pending) or only once the pass is over.
/// </summary>
public sealed class RunGcsGoldenTests
{
    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void Every_figure_is_the_same_whether_gcs_settle_at_every_gc_or_only_at_the_end(string recording)
    {
        var dir = Repo.NewTempDir("rungcs");
        try
        {
            var zip = Repo.CopyGoldenRecording(recording, dir);
            var atEveryGc = Analyze(zip, settleEvery: 1);
            var atTheEnd = Analyze(zip, settleEvery: int.MaxValue);
            Assert.Contains("\"gen0\"", atEveryGc);
            Assert.Equal(atTheEnd, atEveryGc);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }

        static string Analyze(string zip, int settleEvery) =>
            Golden.GoldenAnalysisTests.JsonInProcess(zip, new AnalyzerOptions { CacheEtlx = false, GcSettleEvery = settleEvery }, out _);
    }
}
