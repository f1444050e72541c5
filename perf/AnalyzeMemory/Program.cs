using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;

// Where cold analysis's memory goes, for a trace folder (docs/analyzer.md, "Peak memory against trace length"): the
// analysis as `esp analyze FOLDER --no-cache` runs it (tables only, so no charged samples are kept; --keep-samples
// keeps them, as --html and --speedscope do), with the GC watched every 5 ms from another thread. It prints the most
// the heap held live after a collection (what the analysis needs at once: the figure that grows with the trace), the
// largest heap and committed memory seen (garbage included), what the finished analysis retains, and the process's
// peak resident memory (VmHWM: the heap plus the runtime, loaded code and native buffers).
if (args.Length is < 1 or > 2 || (args.Length == 2 && args[1] != "--keep-samples"))
{
    Console.Error.WriteLine("usage: AnalyzeMemory TRACE_FOLDER [--keep-samples]");
    return 2;
}
long maxLive = 0, maxHeap = 0, maxCommitted = 0;
var done = false;
var watcher = new Thread(() =>
{
    while (!Volatile.Read(ref done))
    {
        var info = GC.GetGCMemoryInfo();
        maxLive = Math.Max(maxLive, info.HeapSizeBytes - info.FragmentedBytes);
        maxHeap = Math.Max(maxHeap, GC.GetTotalMemory(forceFullCollection: false));
        maxCommitted = Math.Max(maxCommitted, info.TotalCommittedBytes);
        Thread.Sleep(5);
    }
}) { IsBackground = true };
watcher.Start();
using var input = TraceInput.Open(args[0]);
var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false, KeepChargedSamples = args.Length == 2 }).Analyze(input);
Volatile.Write(ref done, true);
watcher.Join();
var peakResident = File.Exists("/proc/self/status")
    ? File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("VmHWM:", StringComparison.Ordinal))?[6..].Trim() ?? "?"
    : "?";
GC.Collect();
GC.WaitForPendingFinalizers();
GC.Collect();
var retained = GC.GetTotalMemory(forceFullCollection: true);
Console.WriteLine($"{args[0]}: {analysis.Runs.Count} runs; live after a GC at most {maxLive / 1e6:F1} MB; heap at most {maxHeap / 1e6:F1} MB, committed {maxCommitted / 1e6:F1} MB; retained {retained / 1e6:F1} MB; peak resident {peakResident}");
GC.KeepAlive(analysis);
return 0;
