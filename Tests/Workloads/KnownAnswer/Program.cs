using System.Text.Json;
using EtwSerializerProfiler.Workloads;

// KnownAnswer [--runs R] [--run-ms M] [--truth FILE]: runs the parts in random interleaved chunks inside marked runs
// and writes each part's thread CPU time per run to FILE (JSON), the truth the analyzer's stack tags are held to.
var runs = 4;
var runMs = 250.0;
string? truthPath = null;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--runs": runs = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--run-ms": runMs = double.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--truth": truthPath = args[++i]; break;
        default: Console.Error.WriteLine($"KnownAnswer: unknown argument '{args[i]}'"); return 2;
    }
}
var truth = new PartsWorkload().Run(runs, runMs);
var json = JsonSerializer.Serialize(truth, new JsonSerializerOptions { WriteIndented = true });
if (truthPath is null) Console.WriteLine(json);
else File.WriteAllText(truthPath, json);
return 0;
