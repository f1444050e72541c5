using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Launch;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>
/// `esp record --framework net472`: which build runs, and the combinations that cannot work, rejected with one line
/// before anything is created. Recording it needs Windows (ETW); what is portable is checked here.
/// </summary>
[EndToEnd]
public sealed class FrameworkOptionTests
{
    [Fact]
    public void The_net10_build_stays_the_default_and_net472_needs_the_etw_backend()
    {
        Assert.Equal(BenchmarkFramework.Net10, RecordVerb.Parse(["--n", "10"]).Framework);
        Assert.Equal(BenchmarkFramework.Net10, RecordVerb.Parse(["--framework", "net10.0"]).Framework);
        var o = RecordVerb.Parse(["--backend", "etw", "--framework", "net472", "--n", "10"]);
        Assert.Equal(BenchmarkFramework.Net472, o.Framework);
        Assert.Equal(["--n", "10"], o.BenchmarkArgs); // --framework is the recorder's, never passed on

        var eventPipe = Assert.Throws<UsageException>(() => RecordVerb.Parse(["--framework", "net472"]));
        Assert.Contains("has no EventPipe: add --backend etw", eventPipe.Message, StringComparison.Ordinal);
        Assert.Contains("--heap", Assert.Throws<UsageException>(() => RecordVerb.Parse(["--backend", "etw", "--framework", "net472", "--heap", "Reflection"])).Message, StringComparison.Ordinal);
        Assert.Throws<UsageException>(() => RecordVerb.Parse(["--backend", "etw", "--framework", "net472", "--", "app.exe"]));
        Assert.Contains("net10.0 or net472", Assert.Throws<UsageException>(() => RecordVerb.Parse(["--framework", "net48"])).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Net472_runs_the_exe_directly_and_net10_runs_the_dll_under_the_dotnet_host()
    {
        var tool = Path.Combine("tools", "esp");
        var exe = BenchmarkBuild.PathFor(BenchmarkFramework.Net472, tool);
        Assert.Equal(Path.Combine(tool, "net472", "SerializerBenchmark.exe"), exe);
        var framework = BenchmarkBuild.Command(BenchmarkFramework.Net472, exe, ["--n", "10"], new Dictionary<string, string>());
        Assert.Equal(exe, framework.FileName);
        Assert.Equal(["--n", "10"], framework.Arguments);
        var dll = BenchmarkBuild.PathFor(BenchmarkFramework.Net10, tool);
        var core = BenchmarkBuild.Command(BenchmarkFramework.Net10, dll, ["--n", "10"], new Dictionary<string, string>());
        Assert.Equal([dll, "--n", "10"], core.Arguments);
    }

    [Fact]
    public void The_build_copies_the_net472_benchmark_next_to_the_tool()
    {
        // Where `esp record --framework net472` looks; the tests' output gets the same copy as esp's.
        Assert.True(File.Exists(BenchmarkBuild.PathFor(BenchmarkFramework.Net472, Repo.BinDir)), "net472/SerializerBenchmark.exe missing: Benchmark/NetFrameworkBenchmark.targets did not run");
        Assert.True(File.Exists(Path.Combine(Repo.BinDir, "net472", "EtwSerializerProfiler.Common.dll")));
        Assert.True(File.Exists(Path.Combine(Repo.BinDir, "net472", "SerializerBenchmark.exe.config")));
    }

    [PlatformFact("NotWindows", "on Windows this would record")]
    public void Off_windows_the_cli_says_etw_needs_windows_and_creates_nothing()
    {
        var dir = Path.Combine(Path.GetTempPath(), "never-" + Guid.NewGuid().ToString("N"));
        var r = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "record", "--backend", "etw", "--framework", "net472", "--out", dir, "--n", "10");
        Assert.Equal(ExitCodes.Usage, r.ExitCode);
        Assert.Contains("--backend etw needs Windows", r.StdErr, StringComparison.Ordinal);
        Assert.Single(r.StdErr.Trim().Split('\n'));
        Assert.False(Directory.Exists(dir));
    }
}
