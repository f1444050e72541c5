using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Cli;

[EndToEnd]
public sealed class CleanupVerbTests
{
    [Fact]
    public void Off_windows_cleanup_explains_there_is_nothing_to_stop_and_succeeds()
    {
        // On Windows this would stop real sessions on the machine running the tests; docs/windows.md lists it as
        // needing a Windows machine. The name filter it relies on is tested in EtwSessionPlanTests.
        if (OperatingSystem.IsWindows()) return;
        var esp = Path.Combine(Repo.BinDir, "esp.dll");
        var r = ProcessRunner.Dotnet(esp, "cleanup");
        Assert.Equal(0, r.ExitCode);
        Assert.Contains("no ETW sessions exist off Windows; EventPipe sessions end with their process", r.StdOut, StringComparison.Ordinal);
        Assert.Equal(2, ProcessRunner.Dotnet(esp, "cleanup", "now").ExitCode);
        Assert.Contains("cleanup", ProcessRunner.Dotnet(esp, "--help").StdOut, StringComparison.Ordinal);
    }
}
