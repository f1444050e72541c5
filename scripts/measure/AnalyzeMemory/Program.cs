using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;

// Where cold analysis's memory goes, for a trace folder (docs/analyzer.md, "Peak memory against trace length"): the
// analysis as `esp analyze FOLDER --no-cache` runs it (tables only, so no charged samples are kept; --keep-samples
// keeps them, as --html and --speedscope do), with the GC watched every 5 ms from another thread. It prints the most
// the heap held live after a collection (what the analysis needs at once: the figure that grows with the trace), the
// largest heap and committed memory seen (garbage included), what the finished analysis retains, and the process's
// peak resident memory (VmHWM: the heap plus the runtime, loaded code and native buffers).
// --no-kernel: as `esp analyze --no-kernel` (the EventPipe trace alone).
// --dump-at MB: once the live heap after a collection passes MB, the runtime's createdump writes a full dump of this
// process to /tmp/analyze-memory.PID.dmp (once), for a census of what is reachable then (ClrMD).
var keep = args.Contains("--keep-samples");
var noKernel = args.Contains("--no-kernel");
var dumpAt = args.SkipWhile(a => a != "--dump-at").Skip(1).Select(a => double.TryParse(a, System.Globalization.CultureInfo.InvariantCulture, out var mb) ? mb : -1).FirstOrDefault(-1);
var rest = args.Where((a, i) => a != "--keep-samples" && a != "--no-kernel" && a != "--dump-at" && (i == 0 || args[i - 1] != "--dump-at")).ToList();
if (rest.Count != 1 || (args.Contains("--dump-at") && dumpAt <= 0))
{
    Console.Error.WriteLine("usage: AnalyzeMemory TRACE_FOLDER [--keep-samples] [--no-kernel] [--dump-at MB]");
    return 2;
}
long maxLive = 0, maxHeap = 0, maxCommitted = 0;
var done = false;
var dumped = false;
var watcher = new Thread(() =>
{
    while (!Volatile.Read(ref done))
    {
        var info = GC.GetGCMemoryInfo();
        if (!dumped && dumpAt > 0 && info.HeapSizeBytes - info.FragmentedBytes > dumpAt * 1e6)
        {
            dumped = true;
            var createdump = Path.Combine(System.Runtime.InteropServices.RuntimeEnvironment.GetRuntimeDirectory(), "createdump");
            var file = $"/tmp/analyze-memory.{Environment.ProcessId}.dmp";
            using var p = System.Diagnostics.Process.Start(createdump, ["--full", "-f", file, Environment.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
            p.WaitForExit();
            Console.Error.WriteLine($"dumped at {(info.HeapSizeBytes - info.FragmentedBytes) / 1e6:F1} MB live: {file}");
        }
        maxLive = Math.Max(maxLive, info.HeapSizeBytes - info.FragmentedBytes);
        maxHeap = Math.Max(maxHeap, GC.GetTotalMemory(forceFullCollection: false));
        maxCommitted = Math.Max(maxCommitted, info.TotalCommittedBytes);
        Thread.Sleep(5);
    }
}) { IsBackground = true };
watcher.Start();
using var input = TraceInput.Open(rest[0]);
var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false, KeepChargedSamples = keep, UseKernelSession = !noKernel }).Analyze(input);
Volatile.Write(ref done, true);
watcher.Join();
var allocated = GC.GetTotalAllocatedBytes();
int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
var pause = GC.GetTotalPauseDuration();
var peakResident = File.Exists("/proc/self/status")
    ? File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("VmHWM:", StringComparison.Ordinal))?[6..].Trim() ?? "?"
    : "?";
GC.Collect();
GC.WaitForPendingFinalizers();
GC.Collect();
var retained = GC.GetTotalMemory(forceFullCollection: true);
Console.WriteLine($"{rest[0]}: {analysis.Runs.Count} runs; live after a GC at most {maxLive / 1e6:F1} MB; heap at most {maxHeap / 1e6:F1} MB, committed {maxCommitted / 1e6:F1} MB; retained {retained / 1e6:F1} MB; peak resident {peakResident}");
Console.WriteLine($"allocated {allocated / 1e6:F0} MB; collections gen0/gen1/gen2 {gen0}/{gen1}/{gen2}; pauses {pause.TotalMilliseconds:F0} ms");
GC.KeepAlive(analysis);
return 0;
