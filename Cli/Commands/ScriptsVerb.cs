using System.CommandLine;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Recorder.Scripts;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp scripts generate [--profile NAME] [--out DIR]` writes the tracelog/xperf scripts, the WPR profile and the WPA
/// regions from Profiles/profiles.json; `esp scripts check` fails when the committed files are stale.
/// </summary>
public static class ScriptsVerb
{
    public const string Name = "scripts";

    public static IReadOnlyList<GeneratedFile> Generate(string profile = WindowsToolFiles.DefaultProfile) =>
        WindowsToolFiles.Generate(ProfileCatalog.Get(profile));

    public static Command Create(CommonOptions common, IConsole console)
    {
        var root = new Option<string>("--out")
        {
            Description = "the folder to write to or check (default: the current folder, i.e. the repository root)",
            HelpName = "DIR",
            DefaultValueFactory = _ => ".",
            Recursive = true,
        };
        var command = new Command(Name, "generate or check the tracelog/xperf scripts, WPR profile and WPA regions from the profiles");
        // Before or after generate|check, as always: both options are recursive, holding for both subcommands.
        var profile = common.Profile;
        command.Options.Add(profile);
        command.Options.Add(root);
        command.Subcommands.Add(Subcommand("generate", "write scripts/tracelog/*.cmd, scripts/xperf/*.cmd, Profiles/NAME.wprp and wpa-regions/*.xml under DIR", console, profile, root, Write));
        command.Subcommands.Add(Subcommand("check", "exit 1 if any of those files under DIR differs from what generate would write", console, profile, root, Check));
        return command;
    }

    private static Command Subcommand(string name, string description, IConsole console, Option<string> profile, Option<string> root,
        Func<IReadOnlyList<GeneratedFile>, string, string, IConsole, int> run)
    {
        var command = new Command(name, description);
        command.SetAction((parse, cancel) => CommandRunner.RunAsync($"{Name} {name}", console, () =>
        {
            var p = parse.GetValue(profile)!;
            return Task.FromResult(run(Generate(p), p, parse.GetValue(root)!, console));
        }, cancel));
        return command;
    }

    private static int Write(IReadOnlyList<GeneratedFile> files, string profile, string root, IConsole console)
    {
        foreach (var f in files)
        {
            var path = Path.Combine(root, f.RelativePath);
            Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
            File.WriteAllText(path, f.Content);
        }
        console.Out.WriteLine($"wrote {files.Count} files under {Path.GetFullPath(root)} (profile '{profile}')");
        return ExitCodes.Ok;
    }

    private static int Check(IReadOnlyList<GeneratedFile> files, string profile, string root, IConsole console)
    {
        var stale = files.Where(f => !File.Exists(Path.Combine(root, f.RelativePath)) || File.ReadAllText(Path.Combine(root, f.RelativePath)) != f.Content).ToList();
        foreach (var f in stale)
            console.Error.WriteLine($"{f.RelativePath} is {(File.Exists(Path.Combine(root, f.RelativePath)) ? "stale" : "missing")}: run `esp scripts generate`");
        if (stale.Count == 0) console.Out.WriteLine($"{files.Count} files up to date");
        return stale.Count == 0 ? ExitCodes.Ok : ExitCodes.Failed;
    }
}
