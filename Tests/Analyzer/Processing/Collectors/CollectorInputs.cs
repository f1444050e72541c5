using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

/// <summary>Hand-made runs and threads for the collectors: what the pass would hand them.</summary>
internal static class CollectorInputs
{
    public const int Worker = 20, Other = 21;

    public static RunDraft Run(double startMs, double endMs, int run = 1) => new()
    {
        Key = new RunKey("S", "deserialize", 100, run),
        StartMs = startMs,
        EndMs = endMs,
        WorkerThreadId = Worker,
        MarkerThreadId = 10,
    };

    public static ThreadDraft Thread(int id = Worker) => new() { ThreadId = id };
}
