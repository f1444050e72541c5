using System.Collections.Concurrent;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// A kernel session's perf text read in chunks on its own thread (<see cref="PerfScriptReader.ReadChunks"/>), a
/// bounded read-ahead: the reader starts beside the EventPipe pass and stops once <see cref="Ahead"/> chunks wait,
/// because nothing can be charged before the pass has mapped the code and found the runs; then each chunk is
/// charged and dropped while the next is read. So a longer trace costs time, not memory: at most the waiting chunks,
/// the one being read and the one being charged are alive (docs/analyzer.md, "Peak memory against trace length").
/// </summary>
internal sealed class KernelChunks : IDisposable
{
    /// <summary>Records per chunk: samples, switches and wake-ups (a few MB with the stacks new in them).</summary>
    public const int RecordsPerChunk = AnalyzerOptions.DefaultKernelRecordsPerChunk;
    /// <summary>
    /// Chunks read ahead and waiting to be charged: enough for the reader to keep its core through the pass (the
    /// README's folder is 16 chunks, the big one 67), still a bound; measured in docs/speed.md.
    /// </summary>
    public const int Ahead = 16;

    private readonly BlockingCollection<KernelTrace> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _reader;
    /// <summary>Chunks taken to decide what the session holds (<see cref="Peek"/>), handed out first.</summary>
    private readonly Queue<KernelTrace> _peeked = new();
    private KernelTrace? _last;
    private bool _taken;
    private bool _disposed;

    /// <summary>Chunks charged and handed back (<see cref="Recycle"/>), which the reader reads into again; null: none kept.</summary>
    private readonly ConcurrentQueue<KernelTrace>? _recycled;

    private KernelChunks(Func<CancellationToken, Action<KernelTrace>, int> read, int ahead, ConcurrentQueue<KernelTrace>? recycled = null)
    {
        _recycled = recycled;
        _queue = new BlockingCollection<KernelTrace>(ahead);
        // Its own thread, not the pool's: it blocks whenever the read-ahead is full, and the charge's work beside the
        // analysis (the threads' side, EventPipe's bias) needs the pool's threads meanwhile.
        _reader = Task.Factory.StartNew(() =>
        {
            try { BadLines = read(_stop.Token, chunk => _queue.Add(chunk, _stop.Token)); }
            catch (OperationCanceledException) { } // stopped: the analysis no longer wants chunks
            // An unreadable or damaged text part way: what was read before it is charged, and the analysis says so.
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or InvalidDataException or FormatException or OverflowException) { Failure = ex.Message; }
            finally { _queue.CompleteAdding(); }
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    /// <summary>The perf text behind <paramref name="utf8"/> (which this owns, and closes when read), read in chunks from now on.</summary>
    public static KernelChunks Reading(Stream utf8, double samplePeriodMs, int recordsPerChunk = RecordsPerChunk, int ahead = Ahead)
    {
        var recycled = new ConcurrentQueue<KernelTrace>();
        return new KernelChunks((stop, chunk) =>
        {
            using (utf8) return PerfScriptReader.ReadChunks(utf8, samplePeriodMs, recordsPerChunk, chunk, reuse: () => recycled.TryDequeue(out var c) ? c : null);
        }, ahead, recycled);
    }

    /// <summary>A session already read whole (perf script run again with --symbols): one chunk.</summary>
    public static KernelChunks Whole(KernelTrace trace, int badLines) => new((_, chunk) => { chunk(trace); return badLines; }, ahead: 1);

    /// <summary>Lines that did not parse; final once every chunk has been taken.</summary>
    public int BadLines { get; private set; }

    /// <summary>Why the text could not be read to its end (an I/O error part way), or null; final once every chunk has been taken.</summary>
    public string? Failure { get; private set; }

    /// <summary>The last chunk taken: it holds the session's totals (lost records, process id) and, with every chunk, the thread names.</summary>
    public KernelTrace? Last => _last;

    /// <summary>
    /// Waits for chunks until one holds a CPU sample, or the text ends: what the analysis chooses its CPU source by.
    /// The chunks waited for stay in memory until taken (in perf's text samples come within the first records).
    /// </summary>
    /// <returns>Whether any chunk holds a sample, and whether any holds a sample or a context switch.</returns>
    public (bool Samples, bool Anything) Peek()
    {
        var anything = false;
        foreach (var c in _peeked)
        {
            if (c.Samples.Count > 0) return (true, true);
            anything |= c.SwitchOuts.Count > 0;
        }
        while (_queue.TryTake(out var chunk, Timeout.Infinite))
        {
            _peeked.Enqueue(chunk);
            _last = chunk;
            if (chunk.Samples.Count > 0) return (true, true);
            anything |= chunk.SwitchOuts.Count > 0;
        }
        return (false, anything);
    }

    /// <summary>Every chunk in file order, each once: those peeked at, then the rest as they are read.</summary>
    public IEnumerable<KernelTrace> Take()
    {
        if (_taken) throw new InvalidOperationException("a kernel session's chunks are taken once");
        _taken = true;
        while (_peeked.TryDequeue(out var chunk)) yield return chunk;
        foreach (var chunk in _queue.GetConsumingEnumerable())
        {
            _last = chunk;
            yield return chunk;
        }
        _reader.GetAwaiter().GetResult(); // the totals are set before the queue completes; this observes the task
    }

    /// <summary>
    /// A taken chunk every stage is done with: the reader fills it again rather than a new one (nothing may keep it or
    /// its ids). The last chunk, which holds the session's totals, is never filled again: the reader is done by then.
    /// </summary>
    public void Recycle(KernelTrace chunk) => _recycled?.Enqueue(chunk);

    /// <summary>Stops the reader (when the analysis ended before taking every chunk) and waits for it to let go of the file.</summary>
    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        _stop.Cancel();
        try { _reader.GetAwaiter().GetResult(); }
        catch (Exception) { } // already reported where it mattered: this is the stop
        _stop.Dispose();
        _queue.Dispose();
    }
}
