namespace EtwSerializerProfiler.Common;

/// <summary>
/// How the benchmark measures what tracing costs it, in one process (docs/recorder.md "What tracing costs"). After
/// its measured runs it asks the recorder, over a named pipe the recorder created (--tracing-cost-pipe NAME), to turn
/// tracing off and on, and runs every case in blocks: untraced (settling, not kept), then untraced, traced, traced,
/// untraced, three times.
/// <code>
/// benchmark → recorder   untraced?   the recorder stops its sessions (the trace ends here) and answers
/// recorder → benchmark   untraced
/// benchmark → recorder   traced?     the recorder starts scratch sessions like the first, and answers
/// recorder → benchmark   traced
/// benchmark → recorder   done        the recorder stops the scratch sessions; the benchmark goes on to exit
/// </code>
/// End-of-stream on either side means the other is gone: the benchmark then stops measuring the cost.
/// </summary>
public static class TracingCostHandshake
{
    /// <summary>The benchmark option that names the pipe; the recorder adds it.</summary>
    public const string Option = "tracing-cost-pipe";
    public const string AskUntraced = "untraced?";
    public const string AskTraced = "traced?";
    public const string Untraced = "untraced";
    public const string Traced = "traced";
    public const string Done = "done";

    /// <summary>
    /// Blocks in order: false = untraced, true = traced. The first is thrown away: right after the recording's own
    /// sessions stop the process runs slower for a while (measured: 3-4x for the first block of XmlSerializer N=50). A case still
    /// tiering up settles longer (TracingCostBlocks.MostSettling).
    /// Then three times untraced, traced, traced, untraced: a drift that is linear in time falls equally on both
    /// sides, and short blocks follow a drift that is not (a case still speeding up: 0.11 to 0.03 ms per operation).
    /// </summary>
    public static readonly IReadOnlyList<bool> Blocks = [false, false, true, true, false, false, true, true, false, false, true, true, false];

    /// <summary>The blocks at the start that settle the process and are not kept.</summary>
    public const int SettlingBlocks = 1;

    /// <summary>How long either side waits for the other's answer (a session start can take seconds on a busy machine).</summary>
    public static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(60);
}

/// <summary>One case's tracing-cost blocks (results.json <c>tracingCost</c>): per-operation times of every run.</summary>
public sealed record TracingCostCase
{
    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    public required string Data { get; init; }
    public required int Objects { get; init; }
    public required int Operations { get; init; }
    /// <summary>
    /// Runs per block (--tracing-cost-runs): the lists hold the kept blocks' runs in order, so the analysis can pair
    /// each traced block with the untraced block beside it. Null in results written before it.
    /// </summary>
    public int? RunsPerBlock { get; init; }
    /// <summary>Per run: Stopwatch ms per operation, with tracing off.</summary>
    public List<double> UntracedMs { get; init; } = [];
    /// <summary>Per run: Stopwatch ms per operation, with tracing on.</summary>
    public List<double> TracedMs { get; init; } = [];
    /// <summary>Per run: thread CPU ms per operation, untraced and traced.</summary>
    public List<double> UntracedCpuMs { get; init; } = [];
    public List<double> TracedCpuMs { get; init; } = [];
}
