using System.Text.Json;
using EtwSerializerProfiler.Workloads;

// SampleApp [--exceptions N] [--lock-threads T] [--truth FILE]: an app of the user's own, traced by whatever tool the
// user has. It counts what it does in-process and writes it to FILE (JSON): the truth a whole-trace analysis is held to.
var exceptions = 2000;
var lockThreads = 4;
string? truthPath = null;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--exceptions": exceptions = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--lock-threads": lockThreads = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--truth": truthPath = args[++i]; break;
        default: Console.Error.WriteLine($"SampleApp: unknown argument '{args[i]}'"); return 2;
    }
}
var truth = new SampleWork().Run(exceptions, lockThreads);
var json = JsonSerializer.Serialize(truth, new JsonSerializerOptions { WriteIndented = true });
if (truthPath is null) Console.WriteLine(json);
else File.WriteAllText(truthPath, json);
return 0;
