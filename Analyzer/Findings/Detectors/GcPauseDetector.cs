using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// Runs in which the GC had the threads suspended for a large share of the time (seed 000: "while deserializing
/// you are effectively GC bound"; 7 s Gen1 pauses). Deserialization builds a graph that survives, so every
/// collection during it copies what was read so far.
/// </summary>
internal sealed class GcPauseDetector : IFindingDetector
{
    public string Kind => FindingKinds.GcBound;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        foreach (var g in context.Cases)
        {
            var pause = g.Mean(r => r.GcPauseMs);
            var duration = g.Sum(r => r.DurationMs);
            var share = duration <= 0 ? 0 : g.Sum(r => r.GcPauseMs) / duration;
            var (gen0, gen1, gen2) = (g.Mean(r => r.Gen0), g.Mean(r => r.Gen1), g.Mean(r => r.Gen2));
            if (pause < t.MinGcPauseMs || share < t.MinGcPauseShare || gen0 + gen1 + gen2 < t.MinGcsPerRun) continue;
            var allocatedMb = g.Mean(r => r.Counters.AllocatedBytes) / (1024.0 * 1024.0);
            yield return g.FindingOf(Kind, FindingSeverity.Warning,
                Invariant($"GC paused the run {pause:F1} ms of {g.Mean(r => r.DurationMs):F1} ms ({Pct(share)}) with {gen0:0.#}/{gen1:0.#}/{gen2:0.#} gen0/gen1/gen2 GCs and {allocatedMb:F1} MB allocated per run: GC-bound, allocate less or give gen0 a larger budget")) with
            {
                Evidence =
                [
                    new("gcPauseMsPerRun", pause),
                    new("gcPauseShare", share),
                    new("gen0PerRun", gen0),
                    new("gen1PerRun", gen1),
                    new("gen2PerRun", gen2),
                    new("allocatedMbPerRun", allocatedMb),
                    new("durationMs", g.Mean(r => r.DurationMs)),
                ],
            };
        }
    }
}
