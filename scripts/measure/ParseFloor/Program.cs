using System.Diagnostics;
using System.IO.Compression;
using Microsoft.Diagnostics.Tracing;

// The floor for analyzer speed (issue 55): what any analysis of a trace folder must do at least, and nothing else.
// One TraceEvent pass that parses every event of every .nettrace in the folder (the main trace, the stack and
// exception side files), then one decompress-and-read of the kernel session's perf text, line by line, in sequence.
// scripts/measure/analyze-speed.sh holds esp analyze to it (docs/speed.md).
if (args.Length != 1 || !Directory.Exists(args[0]))
{
    Console.Error.WriteLine("usage: ParseFloor TRACE_FOLDER");
    return 2;
}
var clock = Stopwatch.StartNew();
long events = 0;
var files = Directory.GetFiles(args[0], "*.nettrace").Order(StringComparer.Ordinal).ToList();
foreach (var path in files)
{
    using var source = new EventPipeEventSource(path);
    source.AllEvents += _ => events++;
    source.Process();
}
Console.WriteLine($"{events} events in {files.Count} .nettrace files in {clock.Elapsed.TotalSeconds:F2} s");
var perfText = Path.Combine(args[0], "kernel.perf-script.txt.gz");
if (File.Exists(perfText))
{
    clock.Restart();
    long lines = 0;
    using var file = File.OpenRead(perfText);
    using var stream = new GZipStream(file, CompressionMode.Decompress);
    using var reader = new StreamReader(stream, bufferSize: 1 << 16);
    while (reader.ReadLine() is not null) lines++;
    Console.WriteLine($"{lines} perf text lines in {clock.Elapsed.TotalSeconds:F2} s");
}
Console.WriteLine($"allocated {GC.GetTotalAllocatedBytes() / 1e6:F0} MB; collections gen0/gen1/gen2 {GC.CollectionCount(0)}/{GC.CollectionCount(1)}/{GC.CollectionCount(2)}; pauses {GC.GetTotalPauseDuration().TotalMilliseconds:F0} ms");
return 0;
