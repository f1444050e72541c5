using System.Diagnostics;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.EventPipe;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.EventPipe;

/// <summary>The trace writer on a full disk: it notes the cut and drains the stream, so the runtime never blocks.</summary>
public sealed class TraceStreamWriterTests
{
    [PlatformFact("Linux", "/dev/full (every write fails with ENOSPC) is Linux's")]
    public async Task A_full_disk_cuts_the_trace_and_the_rest_of_the_stream_is_still_read()
    {
        var source = new MemoryStream(new byte[1 << 20]);
        await using var full = new FileStream("/dev/full", FileMode.Open, FileAccess.Write, FileShare.ReadWrite, 0, useAsync: true);
        var writer = TraceStreamWriter.Start(source, full, Stopwatch.StartNew());
        await writer.Completion.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(source.Length, source.Position); // drained to the end, not stopped at the failed write
        Assert.True(writer.Cut.IsCompleted);
        var (status, cut) = await writer.Cut;
        Assert.Equal(RecordingStatus.DiskFull, status);
        Assert.Contains("No space left", cut.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_stream_that_fits_is_copied_whole_and_never_cut()
    {
        var bytes = Enumerable.Range(0, 300_000).Select(i => (byte)i).ToArray();
        var path = Path.Combine(Repo.NewTempDir("tsw"), "t.nettrace");
        await using (var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 0, useAsync: true))
        {
            var writer = TraceStreamWriter.Start(new MemoryStream(bytes), file, Stopwatch.StartNew());
            await writer.Completion.WaitAsync(TimeSpan.FromSeconds(30));
            Assert.False(writer.Cut.IsCompleted);
        }
        Assert.Equal(bytes, await File.ReadAllBytesAsync(path));
        Directory.Delete(Path.GetDirectoryName(path)!, recursive: true);
    }
}
