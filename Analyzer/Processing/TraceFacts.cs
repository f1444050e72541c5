using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>What a trace says beyond its events, as the analysis reports it: the event count, lost events, thread names, the process.</summary>
internal abstract class TraceFacts
{
    /// <summary>Events in the trace, when known before the pass (for progress); 0 when not.</summary>
    public abstract long EventCount { get; }

    public abstract int EventsLost { get; }

    /// <summary>A thread's symbolic name (".NET ThreadPool Worker", ...), or null.</summary>
    public abstract string? ThreadName(int threadId);

    /// <summary>The traced process: the one of <paramref name="processId"/> (a machine-wide trace's benchmark; none while 0), or when null the trace's one process.</summary>
    public abstract (string Name, int Id)? Process(int? processId);
}

/// <summary>TraceLog's facts (ETW, or a converted .etlx).</summary>
internal sealed class TraceLogFacts(TraceLog log) : TraceFacts
{
    private Dictionary<int, string>? _threadNames;

    public override long EventCount => log.EventCount;

    public override int EventsLost => log.EventsLost;

    public override string? ThreadName(int threadId)
    {
        // The last of a reused thread id's threads wins, as it always did.
        _threadNames ??= log.Threads.Where(t => !string.IsNullOrEmpty(t.ThreadInfo)).GroupBy(t => t.ThreadID).ToDictionary(g => g.Key, g => g.Last().ThreadInfo);
        return _threadNames.GetValueOrDefault(threadId);
    }

    public override (string Name, int Id)? Process(int? processId)
    {
        var process = processId is { } id ? log.Processes.LastOrDefault(p => p.ProcessID == id && id != 0) : log.Processes.FirstOrDefault(p => p.ProcessID > 0);
        return process is null ? null : (process.Name, process.ProcessID);
    }
}

/// <summary>
/// The same facts gathered in a raw EventPipe pass, by TraceLog's rules for EventPipe traces: the process named from
/// EventPipe's ProcessInfo command line, threads named by the runtime events that say what they are (finalizer,
/// thread pool). Server GC threads, which TraceLog names from GC mark events, are left unnamed.
/// </summary>
internal sealed class RawEventPipeFacts : TraceFacts
{
    private static readonly Guid EventPipeProvider = new("92f528a6-f5b8-5160-a7ee-b33da7739e29");
    private readonly EventPipeEventSource _source;
    private readonly Dictionary<int, string> _threadNames = [];
    private int _processId;
    private string? _commandLine;

    public RawEventPipeFacts(EventPipeEventSource source)
    {
        _source = source;
        source.AllEvents += e =>
        {
            if (_processId <= 0 && e.ProcessID > 0) _processId = e.ProcessID;
            if (e.ProviderGuid == EventPipeProvider && (int)e.ID == 1) _commandLine = FirstString(e.EventData());
        };
        source.Clr.GCFinalizersStart += e => Categorize(e, ".NET Finalizer Thread");
        source.Clr.GCFinalizersStop += e => Categorize(e, ".NET Finalizer Thread");
        source.Clr.ThreadPoolWorkerThreadAdjustmentSample += e => Categorize(e, ".NET ThreadPool");
        source.Clr.ThreadPoolIODequeue += e => Categorize(e, ".NET IO ThreadPool Worker", overwrite: true);
        var framework = new FrameworkEventSourceTraceEventParser(source);
        framework.ThreadPoolDequeueWork += e => Categorize(e, ".NET ThreadPool Worker");
        framework.ThreadTransferReceive += e => Categorize(e, ".NET ThreadPool Worker");
    }

    public override long EventCount => 0;

    public override int EventsLost => _source.EventsLost;

    public override string? ThreadName(int threadId) => _threadNames.GetValueOrDefault(threadId);

    public override (string Name, int Id)? Process(int? processId) =>
        _processId > 0 ? (NameOf(_commandLine, _processId), _processId) : null;

    /// <summary>The payload's first field, a NUL-terminated UTF-16 string.</summary>
    private static string FirstString(byte[] payload)
    {
        var chars = System.Runtime.InteropServices.MemoryMarshal.Cast<byte, char>(payload.AsSpan(0, payload.Length & ~1));
        var end = chars.IndexOf('\0');
        return new string(end < 0 ? chars : chars[..end]);
    }

    private void Categorize(TraceEvent e, string category, bool overwrite = false)
    {
        if (overwrite || !_threadNames.ContainsKey(e.ThreadID)) _threadNames[e.ThreadID] = category;
    }

    /// <summary>TraceLog's process name: the command line's first word, without its folder and a .exe or .dll.</summary>
    internal static string NameOf(string? commandLine, int processId)
    {
        var image = commandLine ?? "";
        var space = image.IndexOf(' ', StringComparison.Ordinal);
        if (space > 0)
        {
            image = image[..space];
            if (image.Length > 2 && image[0] == '"' && image[^1] == '"') image = image[1..^1];
        }
        var start = image.LastIndexOfAny(['\\', '/']) + 1;
        var dot = image.LastIndexOf('.');
        var name = dot > start && (image[dot..].Equals(".exe", StringComparison.OrdinalIgnoreCase) || image[dot..].Equals(".dll", StringComparison.OrdinalIgnoreCase))
            ? image[start..dot] : image[start..];
        return name.Length == 0 ? $"Process({processId})" : name;
    }
}
