using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.RunMarkers;

/// <summary>
/// The run events as an in-process listener gets them (written synchronously on the writing thread, in order), with
/// notes a test adds between them (a probe's readings), so the order of everything on the worker can be asserted.
/// </summary>
internal sealed class RunEventLog : EventListener
{
    private readonly ConcurrentQueue<Entry> _entries = new();

    /// <summary>An event by name (or a note), the managed thread that wrote it, and its payload by field name.</summary>
    public sealed record Entry(string Name, int ManagedThreadId, IReadOnlyDictionary<string, object?> Payload)
    {
        public string Case => Payload.TryGetValue(RunEvents.Fields.Serializer, out var v) ? (string)v! : "";
        public int Run => (int)Payload[RunEvents.Fields.Run]!;
    }

    public IReadOnlyList<Entry> Entries => [.. _entries];

    public void Note(string name) => _entries.Enqueue(new Entry(name, Environment.CurrentManagedThreadId, new Dictionary<string, object?>()));

    /// <summary>RunStart and RunStop of one case, in order.</summary>
    public List<Entry> StartStop(string caseName) =>
        Entries.Where(e => e.Name is RunEvents.RunStartName or RunEvents.RunStopName && e.Case == caseName).ToList();

    protected override void OnEventSourceCreated(EventSource source)
    {
        if (source.Name == RunEvents.ProviderName) EnableEvents(source, EventLevel.Informational);
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        var payload = new Dictionary<string, object?>();
        for (var i = 0; i < (e.PayloadNames?.Count ?? 0); i++) payload[e.PayloadNames![i]] = e.Payload![i];
        _entries.Enqueue(new Entry(e.EventName ?? $"#{e.EventId}", Environment.CurrentManagedThreadId, payload));
    }
}
