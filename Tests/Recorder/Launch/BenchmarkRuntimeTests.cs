using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Launch;

namespace EtwSerializerProfiler.Tests.Recorder.Launch;

public sealed class BenchmarkRuntimeTests
{
    [Theory]
    [InlineData("8.0", 8, null, "net8.0")]
    [InlineData("9.0", 9, null, "net9.0")]
    [InlineData("10.0", 10, null, "net10.0")]
    [InlineData("8.0.31", 8, "8.0.31", "net8.0")]
    public void Parse_takes_a_major_or_an_exact_version(string text, int major, string? exact, string tfm)
    {
        var runtime = BenchmarkRuntime.Parse(text);
        Assert.Equal(major, runtime.Major);
        Assert.Equal(exact, runtime.ExactVersion);
        Assert.Equal(tfm, runtime.TargetFramework);
    }

    [Theory]
    [InlineData("7.0")]
    [InlineData("11.0")]
    [InlineData("8")]
    [InlineData("8.1")]
    [InlineData("net8.0")]
    [InlineData("8.0.x")]
    public void Parse_refuses_what_the_benchmark_does_not_target(string text) =>
        Assert.Contains("--runtime must be 8.0, 9.0, 10.0", Assert.Throws<UsageException>(() => BenchmarkRuntime.Parse(text)).Message, StringComparison.Ordinal);

    [Fact]
    public void The_tools_own_runtime_needs_no_publish_but_an_exact_patch_does()
    {
        Assert.True(BenchmarkRuntime.Parse($"{Environment.Version.Major}.0").IsToolRuntime);
        Assert.False(BenchmarkRuntime.Parse($"{Environment.Version.Major}.0.1").IsToolRuntime);
        Assert.False(BenchmarkRuntime.Parse("8.0").IsToolRuntime);
    }

    [Fact]
    public void A_missing_runtime_pack_is_one_line_naming_the_package()
    {
        const string output = """
              Determining projects to restore...
            /w/Benchmark/Benchmark.csproj : error NU1102: Unable to find package Microsoft.NETCore.App.Runtime.linux-x64 with version (= 8.0.999)
            /w/Benchmark/Benchmark.csproj : error NU1102:   - Found 12 version(s) in feed [ Nearest version: 8.0.31 ]
              Failed to restore /w/Benchmark/Benchmark.csproj (in 2.1 sec).
            """;

        var line = RuntimePublish.FailureLine(BenchmarkRuntime.Parse("8.0.999"), output);

        Assert.Equal("--runtime 8.0.999: the runtime cannot be restored: package Microsoft.NETCore.App.Runtime.linux-x64 with version (= 8.0.999) is not on the NuGet feed (NU1102)", line);
        Assert.DoesNotContain('\n', line);
    }

    [Fact]
    public void The_source_stamp_changes_with_a_source_file_and_not_with_build_output()
    {
        var root = Directory.CreateTempSubdirectory("esp-stamp-").FullName;
        try
        {
            Directory.CreateDirectory(Path.Combine(root, "Benchmark", "bin"));
            File.WriteAllText(Path.Combine(root, "Benchmark", "A.cs"), "class A {}");
            var first = RuntimePublish.SourceStamp(root);
            File.WriteAllText(Path.Combine(root, "Benchmark", "bin", "out.json"), "{}");
            Assert.Equal(first, RuntimePublish.SourceStamp(root));
            File.WriteAllText(Path.Combine(root, "Benchmark", "A.cs"), "class A { int x; }");
            Assert.NotEqual(first, RuntimePublish.SourceStamp(root));
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }
}
