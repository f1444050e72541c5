using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// dotnet-trace as a user has it: installed as a .NET tool (from the configured feed) into a tool path under the temp
/// folder, once per machine, and reused by later test runs.
/// </summary>
public static class DotnetTraceTool
{
    private static readonly Lock Gate = new();
    private static string? _path;

    public static string Path(ITestOutputHelper output)
    {
        FastRun.RefuseSlowWork("installing dotnet-trace");
        lock (Gate)
        {
            if (_path is not null) return _path;
            var toolPath = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "esp-tests-dotnet-trace");
            var exe = System.IO.Path.Combine(toolPath, "dotnet-trace");
            if (!File.Exists(exe))
            {
                var r = ProcessRunner.Run("dotnet", ["tool", "install", "dotnet-trace", "--tool-path", toolPath], TimeSpan.FromMinutes(5));
                output.WriteLine($"dotnet tool install dotnet-trace: exit {r.ExitCode} {r.StdOut} {r.StdErr}");
                Assert.True(r.ExitCode == 0 && File.Exists(exe), $"dotnet-trace could not be installed as a .NET tool (is the NuGet feed reachable?): {r.StdOut} {r.StdErr}");
            }
            return _path = exe;
        }
    }
}
