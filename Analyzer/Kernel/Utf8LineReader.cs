namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// The lines of a UTF-8 stream, as byte spans over one reused buffer instead of a string per line: the perf text of a
/// kernel session has millions of lines, most of them call-stack frames that are interned, not kept, so decoding
/// them to UTF-16 first would cost more than parsing them. Lines end as <see cref="TextReader.ReadLine"/> ends them
/// (\n, \r or \r\n; a last line without an end is a line, an empty one is not). A line is valid until the next call.
/// </summary>
internal sealed class Utf8LineReader(Stream stream)
{
    private byte[] _buffer = new byte[1 << 16];
    private int _start;
    private int _end;
    private bool _eof;
    /// <summary>A \r ended the last line: a \n right after it belongs to that line end.</summary>
    private bool _skipNewline;

    public bool TryReadLine(out ReadOnlySpan<byte> line)
    {
        while (true)
        {
            if (_skipNewline && _start < _end)
            {
                if (_buffer[_start] == (byte)'\n') _start++;
                _skipNewline = false;
            }
            var pending = _buffer.AsSpan(_start, _end - _start);
            var cut = pending.IndexOfAny((byte)'\n', (byte)'\r');
            if (cut >= 0)
            {
                line = pending[..cut];
                _skipNewline = pending[cut] == (byte)'\r';
                _start += cut + 1;
                return true;
            }
            if (_eof)
            {
                line = pending;
                _start = _end;
                return line.Length > 0;
            }
            Fill();
        }
    }

    /// <summary>Moves the unread part to the front (growing the buffer for a line longer than it) and reads more.</summary>
    private void Fill()
    {
        var pending = _end - _start;
        if (pending == _buffer.Length) Array.Resize(ref _buffer, _buffer.Length * 2);
        else if (_start > 0) Array.Copy(_buffer, _start, _buffer, 0, pending);
        _start = 0;
        _end = pending;
        var read = stream.Read(_buffer, _end, _buffer.Length - _end);
        if (read == 0) _eof = true;
        _end += read;
    }
}
