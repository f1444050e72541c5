using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// Which of a trace's events are the recorded process's. An EventPipe trace holds one process: all of them
/// (<see cref="OneProcess"/>). An ETW trace holds the whole machine: the benchmark's process is known from its first
/// RunStart (<see cref="MachineWide"/>). Chosen once when the trace is opened (<see cref="TraceSources"/>).
/// </summary>
internal interface IProcessScope
{
    /// <summary>A run event (RunStart, BenchmarkDotNet's) came from this process: on a machine-wide trace the first one names the recorded process.</summary>
    void Marked(int processId);

    /// <summary>The event is the recorded process's.</summary>
    bool InProcess(TraceEvent e);

    /// <summary>The key the pass keeps the event's runtime under (one runtime per process).</summary>
    int RuntimeKey(TraceEvent e);

    /// <summary>The recorded process's runtime key (on ETW, known once a RunStart named the process).</summary>
    int RecordedKey { get; }

    /// <summary>Whether the runtime under this key is the recorded process's: only its GCs fall in the runs.</summary>
    bool IsRecorded(int runtimeKey);

    /// <summary>The traced process as the trace's own facts name it.</summary>
    (string Name, int Id)? Process(TraceFacts facts);
}

/// <summary>An EventPipe trace: one process, every event its own.</summary>
internal sealed class OneProcess : IProcessScope
{
    public void Marked(int processId) { }
    public bool InProcess(TraceEvent e) => true;
    public int RuntimeKey(TraceEvent e) => 0;
    public int RecordedKey => 0;
    public bool IsRecorded(int runtimeKey) => true;
    public (string Name, int Id)? Process(TraceFacts facts) => facts.Process(null);
}

/// <summary>
/// An ETW trace: the whole machine. The benchmark's process is the one of its first RunStart; events of other
/// processes, and all events before that RunStart, are not its own. Runtimes are kept per process.
/// </summary>
internal sealed class MachineWide : IProcessScope
{
    private int _processId;

    public void Marked(int processId)
    {
        if (_processId == 0) _processId = processId;
    }

    public bool InProcess(TraceEvent e) => _processId != 0 && e.ProcessID == _processId;
    public int RuntimeKey(TraceEvent e) => e.ProcessID;
    public int RecordedKey => _processId;
    public bool IsRecorded(int runtimeKey) => _processId != 0 && runtimeKey == _processId;
    public (string Name, int Id)? Process(TraceFacts facts) => facts.Process(_processId);
}
