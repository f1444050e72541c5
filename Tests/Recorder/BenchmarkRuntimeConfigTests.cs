using System.Text.Json.Nodes;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Launch;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>The recorder turns the benchmark's --appcontext into runtimeconfig properties that hold from process start.</summary>
public sealed class BenchmarkRuntimeConfigTests
{
    [Fact]
    public void Appcontext_assignments_are_the_benchmarks_own_parse_in_either_spelling()
    {
        IReadOnlyList<KeyValuePair<string, bool>> Switches(params string[] args) => RecordVerb.Parse(args).Benchmark.AppContextSwitches;
        Assert.Equal([KeyValuePair.Create("A", false), KeyValuePair.Create("B.C", true)], Switches("--n", "10", "--appcontext", "A=false", "--appcontext=B.C=True"));
        Assert.Empty(Switches("--runs", "3"));
        Assert.Throws<UsageException>(() => Switches("--appcontext", "D=maybe"));
        Assert.Throws<UsageException>(() => Switches("--appcontext"));
        Assert.Empty(RecordVerb.Parse(["--", "dotnet", "app.dll", "--appcontext", "A=false"]).Benchmark.AppContextSwitches); // a command's own arguments
    }

    [Fact]
    public void The_benchmarks_runtimeconfig_is_copied_with_the_switches_as_config_properties()
    {
        var dir = Repo.NewTempDir("rc");
        var path = Path.Combine(dir, BenchmarkRuntimeConfig.FileName);
        BenchmarkRuntimeConfig.Write(Repo.BenchmarkDll, [KeyValuePair.Create("System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported", false)], path);
        var written = JsonNode.Parse(File.ReadAllText(path))!["runtimeOptions"]!;
        var original = JsonNode.Parse(File.ReadAllText(Path.ChangeExtension(Repo.BenchmarkDll, ".runtimeconfig.json")))!["runtimeOptions"]!;
        Assert.Equal(original["framework"]!.ToJsonString(), written["framework"]!.ToJsonString());
        var properties = written["configProperties"]!.AsObject();
        Assert.False(properties["System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported"]!.GetValue<bool>());
        // The benchmark's own properties are kept.
        foreach (var (name, _) in original["configProperties"]!.AsObject()) Assert.True(properties.ContainsKey(name), name);
        Directory.Delete(dir, recursive: true);
    }
}
