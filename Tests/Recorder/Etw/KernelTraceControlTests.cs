using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Etw;

/// <summary>
/// TraceEventSession.Merge needs TraceEvent's native KernelTraceControl.dll. The package copies it, per architecture,
/// into every platform-neutral build, this Linux one included (docs/windows.md once said "only Windows builds").
/// </summary>
public sealed class KernelTraceControlTests
{
    [Theory]
    [InlineData("amd64")]
    [InlineData("x86")]
    [InlineData("arm64")]
    public void Every_build_carries_KernelTraceControl_for_each_architecture(string architecture)
    {
        var dll = Path.Combine(Repo.BinDir, architecture, "KernelTraceControl.dll");
        Assert.True(File.Exists(dll), $"{dll} is missing");
        Assert.True(new FileInfo(dll).Length > 10_000);
    }
}
