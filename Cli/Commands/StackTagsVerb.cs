using System.CommandLine;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp stacktags generate [FILE]` writes the serializer stack tags from the benchmark's own serializer list;
/// `esp stacktags check [FILE]` fails when the committed file is stale.
/// </summary>
public static class StackTagsVerb
{
    public const string Name = "stacktags";
    public const string RepoFile = TraceFolderLayout.ToolStackTags;

    public static string Generate() => SerializerStackTagsGenerator.Generate(
        SerializerCatalog.All.Select(s => new SerializerTagInfo(s.Name, s.GetType().FullName!, s.LibraryAssemblyName, s.LibraryNamespace)));

    public static Command Create(IConsole console)
    {
        var command = new Command(Name, "generate or check stacktags/Serializers.stacktags from the benchmark's serializers");
        command.Subcommands.Add(Subcommand("generate", "write the stack tags file", console, Write));
        command.Subcommands.Add(Subcommand("check", "exit 1 if the stack tags file differs from what generate would write", console, Check));
        return command;
    }

    private static Command Subcommand(string name, string description, IConsole console, Func<string, IConsole, int> run)
    {
        var file = new Argument<string>("FILE") { Description = $"the stack tags file (default {RepoFile})", DefaultValueFactory = _ => RepoFile };
        var command = new Command(name, description) { file };
        command.SetAction((parse, cancel) => CommandRunner.RunAsync($"{Name} {name}", console, () =>
        {
            ManagedEsp.Require($"{Name} {name}");
            return Task.FromResult(run(parse.GetValue(file)!, console));
        }, cancel));
        return command;
    }

    private static int Write(string path, IConsole console)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        File.WriteAllText(path, Generate());
        console.Out.WriteLine($"wrote {path} ({SerializerCatalog.All.Count} serializers)");
        return ExitCodes.Ok;
    }

    private static int Check(string path, IConsole console)
    {
        if (!File.Exists(path) || File.ReadAllText(path) != Generate())
        {
            console.Error.WriteLine($"{path} is {(File.Exists(path) ? "stale" : "missing")}: run `esp stacktags generate`");
            return ExitCodes.Failed;
        }
        console.Out.WriteLine($"{path} is up to date");
        return ExitCodes.Ok;
    }
}
