namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// What a run is, as RunStart and RunStop carry it. The analyzer groups runs by name, operation and N (one table row
/// each) and identifies a run by those and its number.
/// </summary>
public readonly struct RunInfo
{
    /// <summary>Describes one run; checked here, before anything is written to the trace.</summary>
    /// <param name="name">The case: what the analyzer's first column shows (RunStart's Serializer field).</param>
    /// <param name="operation">What the run does ("serialize", "deserialize", or a word of your own): one table per operation.</param>
    /// <param name="data">What it works on (RunStart's Data field); may be empty.</param>
    /// <param name="n">The size of the work, e.g. objects per call (RunStart's Objects field, the analyzer's N column); 0 if none.</param>
    /// <param name="run">The run's number within its name, operation and N, warm-ups included, from 0.</param>
    /// <param name="warmup">A warm-up run: in the trace, left out of the analyzer's means.</param>
    /// <param name="operations">Calls of the operation inside the run; the analyzer divides every figure by it (per operation).</param>
    public RunInfo(string name, string operation, string data, int n, int run, bool warmup = false, int operations = 1)
    {
        if (string.IsNullOrEmpty(name)) throw new ArgumentException("a run needs a name (the case it measures)", nameof(name));
        if (string.IsNullOrEmpty(operation)) throw new ArgumentException("a run needs an operation (e.g. \"serialize\")", nameof(operation));
        if (n < 0) throw new ArgumentOutOfRangeException(nameof(n), n, "N is a size: 0 or more");
        if (run < 0) throw new ArgumentOutOfRangeException(nameof(run), run, "runs are numbered from 0");
        if (operations < 1) throw new ArgumentOutOfRangeException(nameof(operations), operations, "a run makes at least one call");
        Name = name;
        Operation = operation;
        Data = data ?? "";
        N = n;
        Run = run;
        Warmup = warmup;
        Operations = operations;
    }

    /// <summary>The case (RunStart's Serializer field).</summary>
    public string Name { get; }
    /// <summary>The operation (RunStart's Operation field).</summary>
    public string Operation { get; }
    /// <summary>What the run works on (RunStart's Data field).</summary>
    public string Data { get; }
    /// <summary>The size of the work (RunStart's Objects field).</summary>
    public int N { get; }
    /// <summary>The run's number within its name, operation and N.</summary>
    public int Run { get; }
    /// <summary>Whether it is a warm-up run.</summary>
    public bool Warmup { get; }
    /// <summary>Calls of the operation inside the run.</summary>
    public int Operations { get; }

    /// <summary>The same run under another number.</summary>
    public RunInfo WithRun(int run) => new(Name, Operation, Data, N, run, Warmup, Operations);
}
