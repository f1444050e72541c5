using System.Text.Json;
using EtwSerializerProfiler.Workloads;

// MarkedApp [--runs N] [--warmup W] [--truth FILE] [--long-run-ms MS]: an app of a user's own that marks its runs with the run markers
// library (docs/run-markers.md). Record it with `esp record -- dotnet MarkedApp.dll`, then `esp analyze` the folder.
// It writes what each run measured in-process (Stopwatch, thread CPU clock, allocated bytes) to FILE as JSON, or to
// standard output. --long-run-ms first makes one run ("Long", "wait") that prints "long run started" and sleeps that
// long: a recording that attaches meanwhile (esp record --pid) cuts it.
var runs = 8;
var warmups = 3;
string? truthPath = null;
var longRunMs = 0;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--runs": runs = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--warmup": warmups = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--truth": truthPath = args[++i]; break;
        case "--long-run-ms": longRunMs = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        default: Console.Error.WriteLine($"MarkedApp: unknown argument '{args[i]}'"); return 2;
    }
}
var truth = new MarkedWork().Run(runs, warmups, longRunMs);
var json = JsonSerializer.Serialize(truth, new JsonSerializerOptions { WriteIndented = true });
if (truthPath is null) Console.WriteLine(json);
else File.WriteAllText(truthPath, json);
return 0;
