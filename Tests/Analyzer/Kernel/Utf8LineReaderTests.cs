using EtwSerializerProfiler.Analyzer.Kernel;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>The byte lines the perf text reader walks are exactly the lines TextReader.ReadLine gives.</summary>
public sealed class Utf8LineReaderTests
{
    [Theory]
    [InlineData("")]
    [InlineData("a")]
    [InlineData("a\n")]
    [InlineData("a\n\nb")]
    [InlineData("a\r\nb\rc\n\r\n")]
    [InlineData("\n\n")]
    [InlineData("\r")]
    [InlineData("x\r\r\ny")]
    [InlineData("é\nthread ü\r\n")]
    public void Lines_end_where_ReadLine_ends_them(string text) => Assert.Equal(ReadLines(text), SpanLines(text));

    [Fact]
    public void A_line_longer_than_the_buffer_and_line_ends_across_buffer_refills_are_whole()
    {
        var text = new string('x', 200_000) + "\r\n" + string.Concat(Enumerable.Range(0, 50_000).Select(i => $"line {i}\r\n")) + "end";
        Assert.Equal(ReadLines(text), SpanLines(text));
    }

    private static List<string> ReadLines(string text)
    {
        var reader = new StringReader(text);
        var lines = new List<string>();
        while (reader.ReadLine() is { } line) lines.Add(line);
        return lines;
    }

    private static List<string> SpanLines(string text)
    {
        var reader = new Utf8LineReader(new MemoryStream(System.Text.Encoding.UTF8.GetBytes(text)));
        var lines = new List<string>();
        while (reader.TryReadLine(out var line)) lines.Add(System.Text.Encoding.UTF8.GetString(line));
        return lines;
    }
}
