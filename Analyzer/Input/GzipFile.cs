using System.Buffers.Binary;
using System.IO.Compression;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// A gzip file decompressed, that fails at its end when the file was cut short. .NET's <see cref="GZipStream"/> ends
/// quietly where the file ends, so a perf text cut in half read as a whole, shorter session: nothing said so but the
/// CPU figures falling short of the thread clock. A gzip member ends with a trailer that gives its decompressed length
/// (mod 2^32, RFC 1952); the file's last four bytes are read first, and the end of the data is checked against them.
/// </summary>
/// <remarks>
/// One member per file, as esp's recorder writes it: a file of several members (gzip files concatenated) would be
/// read whole and then reported cut short, since the last trailer counts only its own member.
/// </remarks>
internal sealed class GzipFile : Stream
{
    /// <summary>A gzip header (10 bytes) and trailer (8): anything shorter is cut short whatever it holds.</summary>
    private const int SmallestFile = 18;

    private readonly GZipStream _gzip;
    private readonly uint? _trailerLength;
    private long _read;

    private GzipFile(FileStream file)
    {
        _trailerLength = TrailerLength(file);
        _gzip = new GZipStream(file, CompressionMode.Decompress);
    }

    /// <summary>The file at <paramref name="path"/>: decompressed when its name ends in .gz, else as it is.</summary>
    public static Stream OpenText(string path)
    {
        FileReads.Count(path);
        var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 1 << 16);
        if (!path.EndsWith(".gz", StringComparison.OrdinalIgnoreCase)) return file;
        try { return new GzipFile(file); }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>The decompressed length the last trailer gives, or null for a file too short to have one; the file is left at its start.</summary>
    private static uint? TrailerLength(FileStream file)
    {
        if (file.Length < SmallestFile) return null;
        Span<byte> last = stackalloc byte[4];
        file.Seek(-4, SeekOrigin.End);
        file.ReadExactly(last);
        file.Seek(0, SeekOrigin.Begin);
        return BinaryPrimitives.ReadUInt32LittleEndian(last);
    }

    public override int Read(Span<byte> buffer)
    {
        var n = _gzip.Read(buffer);
        _read += n;
        if (n == 0 && buffer.Length > 0) CheckEnd();
        return n;
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    /// <exception cref="InvalidDataException">
    /// The data ended short of its trailer: the file was cut. The exception GZipStream throws for damaged data, so a
    /// reader handles both alike (the perf text reader counts it as a line not readable and keeps what came before).
    /// </exception>
    private void CheckEnd()
    {
        if (_trailerLength is not { } expected)
            throw new InvalidDataException("cut short: the file is too short to be a whole gzip file");
        if ((uint)_read != expected)
            throw new InvalidDataException($"cut short: its gzip data ends after {_read:N0} bytes, without the trailer that closes it");
    }

    public override bool CanRead => true;
    public override bool CanSeek => false;
    public override bool CanWrite => false;
    public override long Length => throw new NotSupportedException();
    public override long Position { get => _read; set => throw new NotSupportedException(); }
    public override void Flush() { }
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
    public override void SetLength(long value) => throw new NotSupportedException();
    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing) _gzip.Dispose();
        base.Dispose(disposing);
    }
}
