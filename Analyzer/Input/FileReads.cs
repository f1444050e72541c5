using System.Collections.Concurrent;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// The one way the analyzer reads a file of the recording whole: a TraceEvent pass over a .nettrace, the kernel
/// session's text, the manifest, the results. Each read is counted for whoever listens (<see cref="Listen"/>), so a
/// test can hold an analysis to the floor's mechanism (issue 55): each file read once, so each event visited once.
/// Walks that only read headers (<see cref="NetTraceBlocks"/>, the format check) are not whole reads.
/// </summary>
internal static class FileReads
{
    private static readonly AsyncLocal<ConcurrentDictionary<string, int>?> s_listener = new();

    /// <summary>Counts the whole reads made in this execution context (and the tasks and threads it starts) until disposed.</summary>
    public static Listening Listen()
    {
        var reads = new ConcurrentDictionary<string, int>(StringComparer.Ordinal);
        s_listener.Value = reads;
        return new Listening(reads);
    }

    public static EventPipeEventSource Events(string path)
    {
        Count(path);
        return new EventPipeEventSource(path);
    }

    public static byte[] Bytes(string path)
    {
        Count(path);
        return File.ReadAllBytes(path);
    }

    /// <summary>A whole read made by someone else (TraceLog's conversion, a stream read to its end).</summary>
    public static void Count(string path) => s_listener.Value?.AddOrUpdate(Path.GetFullPath(path), 1, static (_, n) => n + 1);

    public sealed class Listening(ConcurrentDictionary<string, int> reads) : IDisposable
    {
        /// <summary>Full path to the number of whole reads.</summary>
        public IReadOnlyDictionary<string, int> Reads => reads;

        public void Dispose() => s_listener.Value = null;
    }
}
