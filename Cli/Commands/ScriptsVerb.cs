using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Recorder.Scripts;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp scripts generate [--profile NAME] [--out DIR]` writes the tracelog/xperf scripts, the WPR profile and the WPA
/// regions from Profiles/profiles.json; `esp scripts check` fails when the committed files are stale.
/// </summary>
public sealed class ScriptsVerb : ICommand
{
    public string Name => "scripts";
    public string Summary => "generate or check the tracelog/xperf scripts, WPR profile and WPA regions from the profiles";

    private const string Usage = """
        esp scripts generate|check [--profile NAME] [--out DIR]

          generate    write scripts/tracelog/*.cmd, scripts/xperf/*.cmd, Profiles/NAME.wprp, wpa-regions/*.xml under DIR
          check       exit 1 if any of those files under DIR differs from what generate would write
          --profile   trace profile to render (default: default)
          --out       folder to write to or check (default: the current folder, i.e. the repository root)
        """;

    public static IReadOnlyList<GeneratedFile> Generate(string profile = WindowsToolFiles.DefaultProfile) =>
        WindowsToolFiles.Generate(ProfileCatalog.Get(profile));

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var r = new ArgReader(args, new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "help", "h" });
        if (r.Flag("help") || r.Flag("h")) { Console.WriteLine(Usage); return Task.FromResult(ExitCodes.Ok); }
        var profile = r.String("profile", WindowsToolFiles.DefaultProfile);
        var root = r.String("out", ".");
        r.RejectUnknown("scripts");
        if (r.Positional.Count != 1 || r.Positional[0] is not ("generate" or "check")) throw new UsageException("usage: esp scripts generate|check [--profile NAME] [--out DIR]");

        var files = Generate(profile);
        if (r.Positional[0] == "generate")
        {
            foreach (var f in files)
            {
                var path = Path.Combine(root, f.RelativePath);
                Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
                File.WriteAllText(path, f.Content);
            }
            Console.WriteLine($"wrote {files.Count} files under {Path.GetFullPath(root)} (profile '{profile}')");
            return Task.FromResult(ExitCodes.Ok);
        }
        var stale = files.Where(f => !File.Exists(Path.Combine(root, f.RelativePath)) || File.ReadAllText(Path.Combine(root, f.RelativePath)) != f.Content).ToList();
        foreach (var f in stale) Console.Error.WriteLine($"{f.RelativePath} is stale: run `esp scripts generate`");
        if (stale.Count == 0) Console.WriteLine($"{files.Count} files up to date");
        return Task.FromResult(stale.Count == 0 ? ExitCodes.Ok : ExitCodes.Failed);
    }
}
