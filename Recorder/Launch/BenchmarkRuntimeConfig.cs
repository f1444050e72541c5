using System.Text.Json.Nodes;

namespace EtwSerializerProfiler.Recorder.Launch;

/// <summary>
/// Makes the benchmark's `--appcontext Name=true|false` hold from the first instruction of a traced process.
/// The benchmark sets the switches itself at the top of Main, which is early enough untraced; traced, it is not:
/// with the runtime provider enabled at launch the runtime's own EventSource starts before Main and reads
/// RuntimeFeature.IsDynamicCodeSupported, which CoreLib caches for the life of the process. Switches in
/// runtimeconfig.json are in AppContext before any managed code runs, so the recorder writes a copy of the
/// benchmark's runtimeconfig.json with them as configProperties into the trace folder and starts the benchmark
/// with `dotnet exec --runtimeconfig`. The benchmark still receives --appcontext, so results.json records the
/// switches and the benchmark verifies that they took effect.
/// </summary>
public static class BenchmarkRuntimeConfig
{
    public const string FileName = "benchmark.runtimeconfig.json";

    /// <summary>Writes the benchmark's runtimeconfig.json plus the switches to <paramref name="path"/>.</summary>
    public static void Write(string benchmarkDll, IReadOnlyList<KeyValuePair<string, bool>> switches, string path)
    {
        var source = Path.ChangeExtension(benchmarkDll, ".runtimeconfig.json");
        if (!File.Exists(source)) throw new Common.UsageException($"--appcontext: {source} not found next to the benchmark (build the solution first)");
        var config = JsonNode.Parse(File.ReadAllText(source))?.AsObject()
            ?? throw new Common.UsageException($"--appcontext: {source} is empty");
        var options = config["runtimeOptions"] as JsonObject ?? throw new Common.UsageException($"--appcontext: {source} has no runtimeOptions");
        if (options["configProperties"] is not JsonObject properties) options["configProperties"] = properties = [];
        foreach (var (name, value) in switches) properties[name] = value;
        File.WriteAllText(path, config.ToJsonString(new System.Text.Json.JsonSerializerOptions { WriteIndented = true }));
    }
}
