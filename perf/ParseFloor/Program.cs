using System.Diagnostics;
using Microsoft.Diagnostics.Tracing;

// The floor for analyzer speed: one TraceEvent pass that parses every event of a .nettrace and does nothing else.
// The analyzer cannot be faster than this; docs/analyzer.md reports its ratio to it.
if (args.Length != 1)
{
    Console.Error.WriteLine("usage: ParseFloor TRACE.nettrace");
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
return 0;
