namespace EtwSerializerProfiler.Common;

/// <summary>
/// The benchmark's options that the recorder sets on the benchmark's command line itself (where its results and heap
/// handshake go): one spelling for the side that writes them (Recorder/) and the side that reads them
/// (Benchmark/BenchmarkOptions), so a rename cannot leave the recorder passing an option the benchmark refuses.
/// The names are without dashes, as the benchmark's option reader takes them; the <c>...Flag</c> forms are the command line's.
/// </summary>
public static class BenchmarkArgs
{
    /// <summary>Where the benchmark writes its in-process results as JSON (<see cref="TraceFolderLayout.ResultsJson"/> in a recording).</summary>
    public const string Json = "json";
    /// <summary>... and as CSV (<see cref="TraceFolderLayout.ResultsCsv"/>).</summary>
    public const string Csv = "csv";
    /// <summary>The pipe over which the benchmark asks the recorder for a heap snapshot (`esp record --heap`).</summary>
    public const string HeapPipe = "heap-pipe";
    /// <summary>How long, in seconds, the benchmark waits for each snapshot.</summary>
    public const string HeapTimeout = "heap-timeout";
    /// <summary>No progress and no table: `esp record --analyze` passes it, as the analysis that follows has the table.</summary>
    public const string Quiet = "quiet";

    public const string JsonFlag = "--" + Json;
    public const string CsvFlag = "--" + Csv;
    public const string HeapPipeFlag = "--" + HeapPipe;
    public const string HeapTimeoutFlag = "--" + HeapTimeout;
    public const string QuietFlag = "--" + Quiet;
}
