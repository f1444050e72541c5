using EtwSerializerProfiler.Cli;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Scripts;

/// <summary>The committed scripts, WPR profile and regions must match what the profile model renders today.</summary>
public sealed class GeneratedWindowsFilesTests
{
    [Fact]
    public void Committed_windows_tool_files_are_up_to_date_with_the_profiles()
    {
        var stale = ScriptsVerb.Generate()
            .Where(f => { var p = Path.Combine(Repo.Root, f.RelativePath); return !File.Exists(p) || File.ReadAllText(p) != f.Content; })
            .Select(f => f.RelativePath).ToList();
        Assert.True(stale.Count == 0, $"stale: {string.Join(", ", stale)}: run `dotnet run --project Cli -c Release -- scripts generate`");
    }

    [Fact]
    public void Generate_writes_every_file_the_docs_name()
    {
        var paths = ScriptsVerb.Generate().Select(f => f.RelativePath).ToHashSet();
        string[] expected =
        [
            "scripts/tracelog/start.cmd", "scripts/tracelog/start-circular.cmd", "scripts/tracelog/save-circular.cmd", "scripts/tracelog/stop.cmd",
            "scripts/xperf/start.cmd", "scripts/xperf/start-circular.cmd", "scripts/xperf/save-circular.cmd", "scripts/xperf/stop.cmd",
            "Profiles/default.wprp", "wpa-regions/GcActivity.xml", "wpa-regions/BenchmarkRuns.xml",
        ];
        Assert.Equal(expected.Order(), paths.Order());
    }

    [Fact]
    public async Task Check_fails_on_a_stale_folder_and_passes_after_generate()
    {
        var dir = Repo.NewTempDir("scripts");
        try
        {
            Task<int> Esp(params string[] args) => EspCommandLine.InvokeAsync(["scripts", .. args], new CapturedConsole(), default);
            Assert.Equal(1, await Esp("check", "--out", dir));
            Assert.Equal(0, await Esp("generate", "--out", dir, "--profile", "gc"));
            Assert.Equal(1, await Esp("check", "--out", dir)); // default != gc
            Assert.Equal(0, await Esp("check", "--out", dir, "--profile", "gc"));
            // Before the subcommand, as always.
            Assert.Equal(0, await Esp("--profile", "gc", "--out", dir, "check"));
            Assert.DoesNotContain("-stackwalk", File.ReadAllText(Path.Combine(dir, "scripts", "xperf", "start.cmd")), StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
