using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Cli;

[EndToEnd]
public sealed class CleanupVerbTests
{
    // On Windows this would stop real sessions on the machine running the tests; docs/windows.md lists it as
    // needing a Windows machine. The name filter it relies on is tested in EtwSessionPlanTests.
    [PlatformFact("NotWindows", "on Windows this would stop the machine's real ETW sessions")]
    public void Off_windows_cleanup_explains_there_is_nothing_to_stop_and_succeeds()
    {
        var esp = Path.Combine(Repo.BinDir, "esp.dll");
        var r = ProcessRunner.Dotnet(esp, "cleanup");
        Assert.Equal(0, r.ExitCode);
        Assert.Contains("no ETW sessions exist off Windows; EventPipe sessions end with their process", r.StdOut, StringComparison.Ordinal);
        Assert.Equal(2, ProcessRunner.Dotnet(esp, "cleanup", "now").ExitCode);
        Assert.Contains("cleanup", ProcessRunner.Dotnet(esp, "--help").StdOut, StringComparison.Ordinal);
    }
}
