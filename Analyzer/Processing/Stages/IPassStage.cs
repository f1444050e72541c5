using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// One stage of the pass, as TraceEvent's computers are: it subscribes to the events it reads and keeps its own
/// state, so a new one touches no other. The pass shares only what every stage needs (<see cref="IPass"/>).
/// </summary>
internal interface IPassStage
{
    /// <summary>Before the pass: subscribes to the events it reads.</summary>
    void Subscribe(TraceEventDispatcher source, IPass pass);

    /// <summary>The pass is over and every run window final: what it hands on (before the CPU charge).</summary>
    void Finish(IPass pass) { }

    /// <summary>The CLR event family it counts, when the trace had none of its events (said for a trace without runs); null otherwise.</summary>
    ClrEventFamily? Missing => null;
}

/// <summary>A family of CLR events, as a warning names it and as the session enables it (<see cref="MissingEvents"/>).</summary>
internal sealed record ClrEventFamily(string Why, ulong Keyword, System.Diagnostics.Tracing.EventLevel Level);
