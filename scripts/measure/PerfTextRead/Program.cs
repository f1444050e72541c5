using System.Diagnostics;
using EtwSerializerProfiler.Analyzer.Kernel;

// What reading a kernel session's perf text costs the analyzer: PerfScriptReader.Read on FILE (kernel.perf-script.txt.gz)
// PASSES times in one process, each pass timed alone, against one decompress-and-split of the same text into byte
// lines (the part no parser avoids). The first pass includes the JIT; the later ones are the reader's steady cost.
// docs/analyzer.md ("Bytes, fewer second parses, module patterns once") reports the figures.
if (args.Length is < 1 or > 2 || (args.Length == 2 && !int.TryParse(args[1], out _)))
{
    Console.Error.WriteLine("usage: PerfTextRead KERNEL.perf-script.txt.gz [PASSES (default 5)]");
    return 2;
}
var passes = args.Length == 2 ? int.Parse(args[1]) : 5;
var clock = Stopwatch.StartNew();
long lines = 0;
using (var file = File.OpenRead(args[0]))
using (var stream = args[0].EndsWith(".gz", StringComparison.OrdinalIgnoreCase) ? new System.IO.Compression.GZipStream(file, System.IO.Compression.CompressionMode.Decompress) : (Stream)file)
{
    var reader = new Utf8LineReader(stream);
    while (reader.TryReadLine(out _)) lines++;
}
Console.WriteLine($"byte lines: {lines:N0} in {clock.Elapsed.TotalSeconds:F3} s");
for (var pass = 1; pass <= passes; pass++)
{
    clock.Restart();
    var trace = PerfScriptReader.Read(args[0], 1.0, out var bad);
    Console.WriteLine($"pass {pass}: {clock.Elapsed.TotalSeconds:F3} s ({trace.Samples.Count:N0} samples, {trace.Stacks.Count:N0} stack nodes, {trace.Frames.Count:N0} frames, {bad} unreadable lines)");
}
return 0;
