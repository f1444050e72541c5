using System.IO.Compression;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Kernel;

/// <summary>The recorder's count of CPU samples ending in unnamed native code, per module, on perf's own text.</summary>
public sealed class UnnamedNativeModulesTests : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("unnamedmods");

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public void Only_the_innermost_frame_of_cpu_samples_counts()
    {
        // Lines as perf 6.1 writes them with PerfRecording.ScriptArguments (from a recording of the native workload).
        const string Coreclr = "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so";
        var text = string.Join('\n',
            "dotnet  8689/8689    445.199237864: cpu-clock/period=1001001,call-graph=fp/: ",
            $"\t          4d4df0 [unknown] ({Coreclr})",
            $"\t          32f1d8 [unknown] ({Coreclr})",
            "",
            "dotnet  8689/8689    445.200238000: cpu-clock/period=1001001,call-graph=fp/: ",
            "\t            1120 alpha_spin (/tmp/x/libespburn.so)",
            $"\t          32f1d8 [unknown] ({Coreclr})",
            "",
            "dotnet  8689/8689    445.201000000: sched:sched_switch: prev_comm=dotnet prev_pid=8689 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
            $"\t          4d4df0 [unknown] ({Coreclr})",
            "",
            "dotnet  8689/8689    445.202238000: cpu-clock/period=1001001,call-graph=fp/: ",
            "\t            1153 [unknown] (/tmp/x/libespburn.so)",
            "");
        var path = Path.Combine(_dir, "kernel.perf-script.txt.gz");
        using (var gz = new GZipStream(File.Create(path), CompressionLevel.Fastest))
        using (var w = new StreamWriter(gz)) w.Write(text);
        var counts = UnnamedNativeModules.LeafCounts(path);
        Assert.Equal((1L, 1L), counts[Coreclr]);
        Assert.Equal((2L, 1L), counts["/tmp/x/libespburn.so"]);
        Assert.Equal(2, counts.Count);
    }

    [Fact]
    public void The_line_naming_them_fits_the_terminal()
    {
        var names = new[] { "libcoreclr.so", "libclrjit.so", "libSystem.Native.so", "libSystem.Security.Cryptography.Native.OpenSsl.so" };
        var line = LinuxKernelSession.NoSymbolsLine(names, 5323);
        Assert.True(line.Length <= 120, line);
        Assert.Contains("libcoreclr.so, libclrjit.so", line);
        Assert.Contains(" +", line);
        Assert.EndsWith("(5,323 samples): esp analyze --symbols DIR", line);
        Assert.Equal("kernel session: no symbols for libcoreclr.so (12 samples): esp analyze --symbols DIR", LinuxKernelSession.NoSymbolsLine(["libcoreclr.so"], 12));
    }
}
