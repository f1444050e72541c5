using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>Counts the pass's events, and says how far it is: a tenth of the events when their count is known first (TraceLog's), else every million (a raw pass's).</summary>
internal sealed class ProgressStage(long eventCount, IProgress<string>? progress) : IPassStage
{
    private readonly long _step = eventCount > 0 ? Math.Max(1, eventCount / 10) : 1_000_000;

    public long Events { get; private set; }

    public void Subscribe(TraceEventDispatcher source, IPass pass) => source.AllEvents += _ =>
    {
        if (++Events % _step == 0) Report(pass.Analysis.Runs.Count);
    };

    private void Report(int runs)
    {
        if (eventCount > 1_000_000) progress?.Report($"  {100 * Events / eventCount}% ({Events:N0} events, {runs} runs)");
        else if (eventCount == 0) progress?.Report($"  {Events:N0} events, {runs} runs");
    }
}
