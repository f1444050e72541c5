using System.Text.Json;
using EtwSerializerProfiler.Workloads;

// SampleApp [--exceptions N] [--lock-threads T] [--libraries MS] [--truth FILE]: an app of the user's own, traced by
// whatever tool the user has. It counts what it does in-process and writes it to FILE (JSON): the truth a whole-trace
// analysis is held to. --libraries: only its two libraries' work (LibraryWork), MS of thread CPU in all.
var exceptions = 2000;
var lockThreads = 4;
double? librariesMs = null;
string? truthPath = null;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--exceptions": exceptions = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--lock-threads": lockThreads = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--libraries": librariesMs = double.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--truth": truthPath = args[++i]; break;
        default: Console.Error.WriteLine($"SampleApp: unknown argument '{args[i]}'"); return 2;
    }
}
var json = librariesMs is { } ms
    ? JsonSerializer.Serialize(LibraryWork.Run(ms), new JsonSerializerOptions { WriteIndented = true })
    : JsonSerializer.Serialize(new SampleWork().Run(exceptions, lockThreads), new JsonSerializerOptions { WriteIndented = true });
if (truthPath is null) Console.WriteLine(json);
else File.WriteAllText(truthPath, json);
return 0;
