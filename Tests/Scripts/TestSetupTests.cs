using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Scripts;

/// <summary>
/// The test command's set-up step (scripts/test-setup.sh) on a machine without the tools: it stops before any test
/// with one line that names the tool, why the tests need it and how to install it, exit 3. Installing is turned off
/// (ESP_SETUP_INSTALL=no) so the check behaves as on a fresh machine without root.
/// </summary>
[EndToEnd]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TestSetupTests
{
    private static readonly string Script = Path.Combine(Repo.Root, "scripts", "test-setup.sh");

    private static ProcessRunner.Result Setup(Dictionary<string, string> environment) =>
        ProcessRunner.Run("bash", [Script], TimeSpan.FromMinutes(1), Repo.Root, environment);

    /// <summary>A stand-in executable that answers --version, as a tool the script would find.</summary>
    private static string FakeTool(string dir, string name)
    {
        var path = Path.Combine(dir, name);
        File.WriteAllText(path, "#!/bin/sh\necho \"" + name + " version 1.0\"\n");
        File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        return path;
    }

    [PlatformFact("Linux", "the set-up step installs Debian packages")]
    public void Without_chromium_it_stops_with_one_line_that_says_what_to_install()
    {
        var dir = Repo.NewTempDir("setup-no-chromium");
        var r = Setup(new() { ["ESP_CHROMIUM"] = dir, ["ESP_PERF"] = FakeTool(dir, "perf"), ["ESP_SETUP_INSTALL"] = "no" });
        Assert.Equal(3, r.ExitCode);
        var error = Assert.Single(r.StdErr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("test setup: chromium is missing", error, StringComparison.Ordinal);
        Assert.Contains("apt-get install -y chromium", error, StringComparison.Ordinal);
        Assert.Contains("HTML report tests", error, StringComparison.Ordinal);
    }

    [PlatformFact("Linux", "perf is the Linux kernel session")]
    public void Without_a_working_perf_it_stops_with_one_line()
    {
        var dir = Repo.NewTempDir("setup-no-perf");
        var broken = Path.Combine(dir, "perf");
        File.WriteAllText(broken, "#!/bin/sh\necho 'E: linux-perf-6.1 is not installed.' >&2\nexit 1\n");
        File.SetUnixFileMode(broken, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        var r = Setup(new() { ["ESP_CHROMIUM"] = FakeTool(dir, "chromium"), ["ESP_PERF"] = broken, ["ESP_SETUP_INSTALL"] = "no" });
        Assert.Equal(3, r.ExitCode);
        var error = Assert.Single(r.StdErr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("test setup: perf is missing", error, StringComparison.Ordinal);
        Assert.Contains("apt-get install -y linux-perf", error, StringComparison.Ordinal);
    }

    [PlatformFact("Linux", "the set-up step installs Debian packages")]
    public void With_both_tools_it_names_them_and_succeeds()
    {
        var dir = Repo.NewTempDir("setup-tools");
        var chromium = FakeTool(dir, "chromium");
        var r = Setup(new() { ["ESP_CHROMIUM"] = chromium, ["ESP_PERF"] = FakeTool(dir, "perf"), ["ESP_SETUP_INSTALL"] = "no" });
        Assert.Equal(0, r.ExitCode);
        Assert.Equal("", r.StdErr);
        Assert.Contains($"test setup: chromium {chromium}", r.StdOut, StringComparison.Ordinal);
    }
}
