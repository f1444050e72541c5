using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Analyzer.Golden;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Cli;

/// <summary>
/// esp as a process in a locale whose decimal mark is a comma prints the captured golden output, byte for byte.
/// Before InvariantGlobalization (Cli/Cli.csproj) it printed "3,2x fastest" and "21.578 events" under LANG=tr_TR.
/// </summary>
[EndToEnd]
public sealed class LocaleTests
{
    [Fact]
    public void Esp_prints_the_captured_output_in_a_turkish_locale()
    {
        var dir = Repo.NewTempDir("golden-locale");
        try
        {
            var zip = Repo.CopyGoldenRecording("kernel-session", dir);
            var locale = new Dictionary<string, string> { ["LANG"] = "tr_TR.UTF-8", ["LC_ALL"] = "tr_TR.UTF-8" };
            var run = ProcessRunner.Run("dotnet", [Path.Combine(Repo.BinDir, "esp.dll"), "analyze", zip, "--top", "15", "--tables", "all", "--no-cache"],
                TimeSpan.FromMinutes(3), environment: locale);
            Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}: {run.StdErr}");
            var expected = File.ReadAllText(Repo.Golden("kernel-session.txt")).ReplaceLineEndings("\n");
            Assert.True(expected == GoldenAnalysisTests.Mask(run.StdOut.ReplaceLineEndings("\n"), dir), "the output under LANG=tr_TR.UTF-8 differs from the captured one");
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }
}
