using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

// ParentApp [--children N] [--dotnet-version] [--truth FILE]: starts N copies of itself (`child`, each prints its PID
// and exits 7) at once, and `dotnet --version` if asked, waits for them (60 s each at most: a child that waits longer
// is killed and counted as hung) and writes what each did to FILE (JSON). Exit 0 when every one ran as expected.
// ParentApp child: the grandchild.
const int ChildExitCode = 7;
if (args is ["child"])
{
    Console.WriteLine($"child {Environment.ProcessId} ran");
    return ChildExitCode;
}

var children = 2;
var dotnetVersion = false;
string? truthPath = null;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--children": children = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
        case "--dotnet-version": dotnetVersion = true; break;
        case "--truth": truthPath = args[++i]; break;
        default: Console.Error.WriteLine($"ParentApp: unknown argument '{args[i]}'"); return 2;
    }
}

// Under `dotnet ParentApp.dll` the process is the dotnet host: a copy of itself is `dotnet ParentApp.dll child`.
var host = Environment.ProcessPath!;
string[] self = Path.GetFileNameWithoutExtension(host) == "dotnet" ? [typeof(ChildRun).Assembly.Location, "child"] : ["child"];
var runs = Enumerable.Range(0, children).Select(_ => ChildRun.StartAsync(host, self)).ToList();
if (dotnetVersion) runs.Add(ChildRun.StartAsync(host, ["--version"]));
var results = await Task.WhenAll(runs);

var truth = new { ProcessId = Environment.ProcessId, Children = results };
var json = JsonSerializer.Serialize(truth, new JsonSerializerOptions { WriteIndented = true });
if (truthPath is null) Console.WriteLine(json);
else File.WriteAllText(truthPath, json);
var expected = results.Take(children).All(r => r.ExitCode == ChildExitCode && r.Output.Trim() == $"child {r.ProcessId} ran")
    && results.Skip(children).All(r => r.ExitCode == 0);
return expected ? 0 : 1;

internal sealed record ChildRun(string[] Arguments, int ProcessId, int ExitCode, string Output, bool Hung)
{
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(60);

    public static async Task<ChildRun> StartAsync(string file, string[] arguments)
    {
        var start = new ProcessStartInfo(file, arguments) { UseShellExecute = false, RedirectStandardOutput = true };
        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var hung = false;
        try { await process.WaitForExitAsync().WaitAsync(s_patience); }
        catch (TimeoutException)
        {
            hung = true;
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
        }
        return new ChildRun(arguments, process.Id, process.ExitCode, await output, hung);
    }
}
