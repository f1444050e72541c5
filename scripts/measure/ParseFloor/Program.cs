using System.Diagnostics;
using System.IO.Compression;
using Microsoft.Diagnostics.Tracing;

// The floor for analyzer speed: one TraceEvent pass that parses every event of a .nettrace and does nothing else,
// then (given a kernel session's perf text, kernel.perf-script.txt.gz) one decompress-and-read of it, line by line.
// The analyzer cannot be faster than this; docs/analyzer.md reports its ratio to it
// (scripts/measure/analyze-speed.sh).
if (args.Length is < 1 or > 2)
{
    Console.Error.WriteLine("usage: ParseFloor TRACE.nettrace [KERNEL.perf-script.txt.gz]");
    return 2;
}
var clock = Stopwatch.StartNew();
long events = 0;
using (var source = new EventPipeEventSource(args[0]))
{
    source.AllEvents += _ => events++;
    source.Process();
}
Console.WriteLine($"{events} events in {clock.Elapsed.TotalSeconds:F2} s");
if (args.Length == 2)
{
    clock.Restart();
    long lines = 0;
    using var file = File.OpenRead(args[1]);
    using var stream = args[1].EndsWith(".gz", StringComparison.OrdinalIgnoreCase) ? new GZipStream(file, CompressionMode.Decompress) : (Stream)file;
    using var reader = new StreamReader(stream, bufferSize: 1 << 16);
    while (reader.ReadLine() is not null) lines++;
    Console.WriteLine($"{lines} perf text lines in {clock.Elapsed.TotalSeconds:F2} s");
}
return 0;
