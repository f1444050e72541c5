using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The floor's mechanism, not its time (issue 55, docs/speed.md): an analysis reads each file of a recording whole
/// once, so it visits each event once. A second pass over a trace (a raw pass redone through TraceLog), a side file
/// read twice or one left unread shows here as a count, on any machine.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class FileReadsTests(RecordedBenchmark recorded)
{
    [Fact]
    public void An_analysis_reads_each_file_of_the_recording_once()
    {
        var folder = recorded.Folder.Path;
        var wanted = Directory.GetFiles(folder, "*.nettrace")
            .Concat(TraceFolderLayout.AnalyzerCompanions.Select(f => Path.Combine(folder, f)))
            .Select(Path.GetFullPath).Order(StringComparer.Ordinal).ToList();
        Assert.Contains(wanted, f => Path.GetFileName(f).StartsWith("exception", StringComparison.Ordinal));
        Assert.All(wanted, f => Assert.True(File.Exists(f), $"{f}: the recording lacks it"));

        var reads = Analyze(folder, times: 1);
        Assert.Equal(wanted, reads.Keys.Order(StringComparer.Ordinal));
        Assert.All(reads, r => Assert.True(r.Value == 1, $"{Path.GetFileName(r.Key)} read {r.Value} times"));

        // The count sees a second read: two analyses under one listener read everything twice.
        Assert.All(Analyze(folder, times: 2), r => Assert.Equal(2, r.Value));
    }

    private static Dictionary<string, int> Analyze(string folder, int times)
    {
        using var listening = FileReads.Listen();
        for (var i = 0; i < times; i++)
        {
            using var input = TraceInput.Open(folder);
            new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        }
        return listening.Reads.ToDictionary();
    }
}
