using System.IO.Compression;
using System.Text;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Input;

/// <summary>
/// A gzip file cut short fails at its end instead of reading as a shorter whole (.NET's GZipStream ends quietly where
/// the file ends): the kernel session's perf text is read through it, so a cut session is reported, not charged as if
/// it were all there.
/// </summary>
public sealed class GzipFileTests : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("gzip");
    private static readonly byte[] Text = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Range(0, 5000).Select(i => $"line {i} of a text that compresses\n")));

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [Fact]
    public void A_whole_file_reads_to_its_end_without_complaint()
    {
        var path = Write("whole.txt.gz", Gzip(Text));
        using var stream = GzipFile.OpenText(path);
        Assert.Equal(Text, ReadAll(stream));
    }

    [Theory]
    [InlineData(0.5)]
    [InlineData(0.9)]
    public void A_file_cut_anywhere_gives_what_it_holds_then_fails_at_its_end(double keep)
    {
        var gz = Gzip(Text);
        var path = Write("cut.txt.gz", gz[..(int)(gz.Length * keep)]);
        using var stream = GzipFile.OpenText(path);
        var read = new MemoryStream();
        var ex = Assert.Throws<InvalidDataException>(() => stream.CopyTo(read));
        Assert.Contains("cut short", ex.Message);
        Assert.Equal(Text[..(int)read.Length], read.ToArray()); // what came before the cut is the text's start
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    [InlineData(8)]
    public void A_file_missing_only_part_of_its_trailer_fails_too(int cut)
    {
        var gz = Gzip(Text);
        var path = Write("trailer.txt.gz", gz[..^cut]);
        using var stream = GzipFile.OpenText(path);
        Assert.Throws<InvalidDataException>(() => ReadAll(stream));
    }

    /// <summary>The case the old reader could not see at all: the cut falls where a line ends, so no line is broken.</summary>
    [Fact]
    public void A_cut_on_a_line_edge_is_reported_by_the_perf_text_reader()
    {
        var path = Write("edge.txt.gz", CutAtFlush(Encoding.UTF8.GetBytes(PerfText(2)), Encoding.UTF8.GetBytes(PerfText(2))));
        var trace = EtwSerializerProfiler.Analyzer.Kernel.PerfScriptReader.Read(path, 1.0, out var bad);
        Assert.Equal(2, trace.Samples.Count); // every sample before the cut is kept
        Assert.Equal(1, bad);
    }

    [Fact]
    public void A_file_too_short_for_a_gzip_header_and_trailer_fails_and_a_plain_text_is_read_as_it_is()
    {
        var tiny = Write("tiny.txt.gz", [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
        using (var stream = GzipFile.OpenText(tiny)) Assert.Throws<InvalidDataException>(() => ReadAll(stream));
        var plain = Write("plain.txt", Text);
        using (var stream = GzipFile.OpenText(plain)) Assert.Equal(Text, ReadAll(stream));
    }

    /// <summary>
    /// The golden kernel session with its perf text cut where a line ends: the analysis keeps the part read and says
    /// the text was cut (before, it read as a whole shorter session, and only the CPU-bias finding hinted at it).
    /// </summary>
    [Fact]
    public void An_analysis_of_a_kernel_session_cut_on_a_line_edge_says_so_and_keeps_the_part_read()
    {
        var zip = Repo.CopyGoldenRecording("kernel-session", _dir);
        var folder = Path.Combine(_dir, "folder");
        ZipFile.ExtractToDirectory(zip, folder);
        var script = Path.Combine(folder, Common.TraceFolderLayout.KernelScript);
        byte[] text;
        using (var whole = new GZipStream(File.OpenRead(script), CompressionMode.Decompress)) text = ReadAll(whole);
        var lines = Encoding.UTF8.GetString(text).Split('\n');
        var half = Encoding.UTF8.GetBytes(string.Join('\n', lines.Take(lines.Length / 2)) + "\n");
        File.WriteAllBytes(script, CutAtFlush(half, text[half.Length..]));

        using var input = TraceInput.Open(folder);
        var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false }).Analyze(input);
        Assert.Contains(analysis.Warnings, w => w.Contains("were not readable (cut short?)", StringComparison.Ordinal));
        Assert.NotEmpty(analysis.Runs);
        Assert.True(analysis.Trace.Kernel?.ProcessSamples > 0, "the samples before the cut are charged");
    }

    private static string PerfText(int samples) => string.Concat(Enumerable.Range(0, samples).Select(i =>
        $"          dotnet 100/100   1.{i:D3}000000: cpu-clock/period=1001001,call-graph=fp/: \n\tffffffff8225f2d9 pvm_irq_enable ([kernel.kallsyms])\n\n"));

    /// <summary>A gzip file of <paramref name="kept"/> then <paramref name="lost"/>, cut after the first's compressed data (a sync flush): it decompresses to exactly <paramref name="kept"/>.</summary>
    private static byte[] CutAtFlush(byte[] kept, byte[] lost)
    {
        var file = new MemoryStream();
        using (var gz = new GZipStream(file, CompressionLevel.Fastest, leaveOpen: true))
        {
            gz.Write(kept);
            gz.Flush();
            var cut = file.Length;
            gz.Write(lost);
            gz.Flush();
            return file.ToArray()[..(int)cut];
        }
    }

    private static byte[] Gzip(byte[] data)
    {
        var file = new MemoryStream();
        using (var gz = new GZipStream(file, CompressionLevel.Fastest, leaveOpen: true)) gz.Write(data);
        return file.ToArray();
    }

    private static byte[] ReadAll(Stream stream)
    {
        var read = new MemoryStream();
        stream.CopyTo(read);
        return read.ToArray();
    }

    private string Write(string name, byte[] bytes)
    {
        var path = Path.Combine(_dir, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }
}
