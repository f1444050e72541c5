using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.EventPipe;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Analyzer.EventBytes;

/// <summary>
/// What a trace costs, by provider and event, to design filters (which keywords or event IDs to drop). Streams
/// the file once with EventPipeEventSource; no ETLX conversion, no stack resolution.
/// </summary>
public sealed class TraceStatistics
{
    public sealed record EventCost(string Provider, string Event, int Id, long Count, long PayloadBytes);

    public required NetTraceBlocks Blocks { get; init; }
    public required IReadOnlyList<EventCost> Events { get; init; }
    public long TotalEvents => Events.Sum(e => e.Count);
    public long TotalPayloadBytes => Events.Sum(e => e.PayloadBytes);
    public int EventsLost { get; init; }

    public static TraceStatistics Compute(string nettracePath, IProgress<string>? progress = null)
    {
        var blocks = NetTraceBlocks.Scan(nettracePath);
        var costs = new Dictionary<(string, string, int), (long Count, long Bytes)>();
        int lost;
        try
        {
            using var source = new EventPipeEventSource(nettracePath);
            void Count(TraceEvent e)
            {
                var key = (e.ProviderName, e.EventName, (int)e.ID);
                var (c, b) = costs.GetValueOrDefault(key);
                costs[key] = (c + 1, b + e.EventDataLength);
            }
            // Each event reaches exactly one of these; subscribing is what makes the parsers name events.
            new ClrTraceEventParser(source).All += Count;
            new ClrRundownTraceEventParser(source).All += Count;
            new SampleProfilerTraceEventParser(source).All += Count;
            source.Dynamic.All += Count;
            source.UnhandledEvents += Count;
            source.Process();
            lost = source.EventsLost;
        }
        catch (Exception ex) when (ex is not BadInputException && ReaderFault.IsFrom(ex, ReaderFault.TraceEvent))
        {
            // A truncated file still has valid events before the cut: report them. With none, there is nothing to say.
            if (costs.Count == 0)
                throw new BadInputException($"{nettracePath}: cannot read trace ({ReaderFault.Describe(ex)}); the file is corrupt or truncated", ex);
            progress?.Report($"warning: trace ends abruptly ({ex.Message}); statistics cover the readable part");
            lost = 0;
        }
        return new TraceStatistics
        {
            Blocks = blocks,
            Events = costs.Select(kv => new EventCost(kv.Key.Item1, kv.Key.Item2, kv.Key.Item3, kv.Value.Count, kv.Value.Bytes))
                .OrderByDescending(e => e.PayloadBytes).ThenByDescending(e => e.Count).ToList(),
            EventsLost = lost,
        };
    }

    public IEnumerable<TextTable> Tables()
    {
        var file = new TextTable("File layout (bytes by block kind)", ["Block", "Count", "KB", "Share"]);
        var labels = new Dictionary<string, string>
        {
            ["EventBlock"] = "EventBlock (events: headers + payloads)",
            ["StackBlock"] = "StackBlock (call stacks)",
            ["MetadataBlock"] = "MetadataBlock (event descriptions)",
            ["SPBlock"] = "SPBlock (sequence points)",
            ["Trace"] = "Trace (header)",
        };
        foreach (var (name, (count, bytes)) in Blocks.Blocks.OrderByDescending(b => b.Value.Bytes))
            file.AddRow(labels.GetValueOrDefault(name, name), Fmt.Int(count), Fmt.Num(bytes / 1024.0), Fmt.Pct((double)bytes / Math.Max(1, Blocks.FileBytes)));
        var stackBytes = Blocks.Blocks.GetValueOrDefault("StackBlock").Bytes;
        if (Blocks.NetPerf)
            file.Notes.Add($"A .netperf file (.NET Core 2.1, {Blocks.FileBytes / 1048576.0:F2} MB) keeps each event's stack and the event descriptions inside its event blocks: their share cannot be told apart.");
        else
        {
            // The advice only where stacks weigh: a session with stacks records one with every event.
            var share = (double)stackBytes / Math.Max(1, Blocks.FileBytes);
            file.Notes.Add($"Stacks take {Fmt.Pct(share)} of {Blocks.FileBytes / 1048576.0:F2} MB" + (share < 0.1 ? "."
                : ": fewer stack-heavy events (allocation ticks, waits), or a session without stacks, shrink them."));
        }
        if (Blocks.ExpectedSamplingMs is { } ms) file.Notes.Add($"Sampling interval declared in the trace header: {ms:F3} ms.");
        if (Blocks.Truncated) file.Notes.Add("The file ends inside a block: truncated.");
        if (Blocks.TrailingBytes > 0) file.Notes.Add($"The file goes on for {Blocks.TrailingBytes:N0} bytes after the trace's end-of-stream tag (two traces joined?): those bytes are not counted below.");
        if (Blocks.Unsupported is { } u) file.Notes.Add($"Block layout not fully understood ({u}); event counts below are still exact.");
        yield return file;

        var byProvider = new TextTable("By provider", ["Provider", "Events", "Share", "Payload KB", "Share "]);
        foreach (var g in Events.GroupBy(e => e.Provider).OrderByDescending(g => g.Sum(e => e.PayloadBytes)))
            byProvider.AddRow(g.Key, Fmt.Int(g.Sum(e => e.Count)), Fmt.Pct((double)g.Sum(e => e.Count) / Math.Max(1, TotalEvents)),
                Fmt.Num(g.Sum(e => e.PayloadBytes) / 1024.0), Fmt.Pct((double)g.Sum(e => e.PayloadBytes) / Math.Max(1, TotalPayloadBytes)));
        yield return byProvider;

        var byEvent = new TextTable("By event (filter candidates first)", ["Provider", "Event", "Id", "Events", "Payload KB", "Share"]);
        foreach (var e in Events)
            byEvent.AddRow(e.Provider, e.Event, Fmt.Int(e.Id), Fmt.Int(e.Count), Fmt.Num(e.PayloadBytes / 1024.0), Fmt.Pct((double)e.PayloadBytes / Math.Max(1, TotalPayloadBytes)));
        if (EventsLost > 0) byEvent.Notes.Add($"{EventsLost:N0} events were lost while recording.");
        yield return byEvent;
    }
}
