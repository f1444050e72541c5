using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp stacktags generate [FILE]` writes the serializer stack tags from the benchmark's own serializer list;
/// `esp stacktags check [FILE]` fails when the committed file is stale.
/// </summary>
public sealed class StackTagsVerb : ICommand
{
    public const string RepoFile = "stacktags/Serializers.stacktags";

    public string Name => "stacktags";
    public string Summary => "generate or check stacktags/Serializers.stacktags from the benchmark's serializers";

    public static string Generate() => SerializerStackTagsGenerator.Generate(
        SerializerCatalog.All.Select(s => new SerializerTagInfo(s.Name, s.GetType().FullName!, s.LibraryAssemblyName, s.LibraryNamespace)));

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        if (args.Count == 0 || args[0] is not ("generate" or "check"))
            throw new UsageException("usage: esp stacktags generate|check [FILE] (default FILE: stacktags/Serializers.stacktags)");
        var path = args.Count > 1 ? args[1] : RepoFile;
        var text = Generate();
        if (args[0] == "generate")
        {
            Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
            File.WriteAllText(path, text);
            Console.WriteLine($"wrote {path} ({SerializerCatalog.All.Count} serializers)");
            return Task.FromResult(ExitCodes.Ok);
        }
        if (!File.Exists(path) || File.ReadAllText(path) != text)
        {
            Console.Error.WriteLine($"{path} is stale: run `esp stacktags generate`");
            return Task.FromResult(ExitCodes.Failed);
        }
        Console.WriteLine($"{path} is up to date");
        return Task.FromResult(ExitCodes.Ok);
    }
}
