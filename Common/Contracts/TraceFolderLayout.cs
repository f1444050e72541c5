namespace EtwSerializerProfiler.Common;

/// <summary>
/// The file names of a trace folder (`esp record` writes them, `esp analyze` and `esp heap` look for them): the one
/// definition both sides use, so a rename cannot leave recordings the analyzer no longer finds. Changing a name here
/// changes the trace folder format: old folders keep the old name (keep reading it).
/// </summary>
public static class TraceFolderLayout
{
    /// <summary>The EventPipe trace.</summary>
    public const string Trace = "trace.nettrace";
    /// <summary>
    /// The profile's stackless events (the runtime's exceptions), from a second EventPipe session without stacks: every
    /// throw's time, thread and type (docs/recorder.md#exceptions-without-stacks). Absent in older recordings.
    /// </summary>
    public const string ExceptionsTrace = "exceptions.nettrace";
    /// <summary>The same events with stacks, from short sampling windows: one file per window (<see cref="ExceptionStacksFile"/>).</summary>
    public const string ExceptionStacksPrefix = "exception-stacks-";
    public const string ExceptionStacksPattern = ExceptionStacksPrefix + "*.nettrace";
    /// <summary>exception-stacks-001.nettrace: the sampler's window number, so the files sort in time order.</summary>
    public static string ExceptionStacksFile(int window) => $"{ExceptionStacksPrefix}{window:D3}.nettrace";
    /// <summary>
    /// The profile's stack keywords (the runtime's lock waits), from an EventPipe session with stacks, when the main
    /// session records without them (docs/recorder.md#stacks-only-where-read). Absent in older recordings.
    /// </summary>
    public const string StacksTrace = "stacks.nettrace";
    /// <summary>Whether a .nettrace's file name is one of the side sessions' (beside the trace, never the trace itself).</summary>
    public static bool IsSideFile(string fileName) =>
        fileName.Equals(ExceptionsTrace, StringComparison.OrdinalIgnoreCase) || fileName.StartsWith(ExceptionStacksPrefix, StringComparison.OrdinalIgnoreCase)
        || fileName.Equals(StacksTrace, StringComparison.OrdinalIgnoreCase);
    /// <summary>The ETW trace (Windows, --backend etw).</summary>
    public const string Etl = "trace.etl";
    public const string Manifest = "manifest.json";
    /// <summary>The benchmark's own in-process results (the truth the analyzer's figures are checked against).</summary>
    public const string ResultsJson = "results.json";
    public const string ResultsCsv = "results.csv";
    /// <summary>The stack tags the recording was made with (copied from stacktags/ beside the tool).</summary>
    public const string StackTags = "Serializers.stacktags";
    /// <summary>The folder beside the tool (and in the repository) that holds the built-in stack tags.</summary>
    public const string StackTagsFolder = "stacktags";
    /// <summary>The built-in stack tags, relative to the tool's folder or the repository: what `esp record` copies in as <see cref="StackTags"/>.</summary>
    public const string ToolStackTags = StackTagsFolder + "/" + StackTags;
    /// <summary>The Linux kernel session: perf's own file (for `perf report`), not read by the analyzer.</summary>
    public const string KernelData = "kernel.perf.data";
    /// <summary>The Linux kernel session as `perf script` text (<see cref="PerfRecording.ScriptArguments"/>), gzipped: what the analyzer reads.</summary>
    public const string KernelScript = "kernel.perf-script.txt.gz";
    /// <summary>Heap snapshots (`esp record --heap`): <see cref="HeapDumpFileName"/> names each.</summary>
    public const string HeapDumpPattern = "heap-*.dmp";

    /// <summary>The files the analyzer reads beside a trace (also what it extracts from a zip with the trace).</summary>
    public static readonly IReadOnlyList<string> AnalyzerCompanions = [ResultsJson, StackTags, Manifest, KernelScript];

    /// <summary>heap-System.Text.Json-200.dmp: one dump per serializer and size, named so a folder listing reads well.</summary>
    public static string HeapDumpFileName(string serializer, int objects)
    {
        var safe = string.Concat(serializer.Select(c => char.IsLetterOrDigit(c) || c is '.' or '-' or '_' ? c : '_'));
        return $"heap-{safe}-{objects}.dmp";
    }
}
