using System.Text;
using EtwSerializerProfiler.Recorder.EventPipe;

namespace EtwSerializerProfiler.Tests.Recorder.EventPipe;

/// <summary>
/// The port proxy's own messages, byte for byte as the diagnostics IPC protocol lays them out (dotnet/diagnostics,
/// ipc-protocol.md). The proxy against real runtimes: <see cref="ChildrenOfTheRecordedProcessTests"/>.
/// </summary>
public sealed class DiagnosticIpcTests
{
    [Fact]
    public void An_advertise_gives_the_runtime_cookie_and_process_id()
    {
        var cookie = Guid.Parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
        byte[] message = [.. "ADVR_V1\0"u8, .. cookie.ToByteArray(), 0x39, 0x30, 0, 0, 0, 0, 0, 0, 0, 0];
        Assert.Equal(34, message.Length);
        Assert.Equal(new RuntimeAdvertise(cookie, 12345), DiagnosticIpc.ParseAdvertise(message));
    }

    [Fact]
    public void Anything_else_is_not_an_advertise()
    {
        byte[] message = [.. "ADVR_V2\0"u8, .. new byte[26]];
        Assert.Null(DiagnosticIpc.ParseAdvertise(message));
        Assert.Null(DiagnosticIpc.ParseAdvertise("ADVR_V1\0"u8)); // cut short
        byte[] hugePid = [.. "ADVR_V1\0"u8, .. new byte[16], 0, 0, 0, 0, 1, 0, 0, 0, 0, 0];
        Assert.Null(DiagnosticIpc.ParseAdvertise(hugePid));
    }

    [Fact]
    public void ResumeRuntime_is_a_bare_header_of_the_process_command_set()
    {
        byte[] expected = [.. Encoding.ASCII.GetBytes("DOTNET_IPC_V1\0"), 20, 0, 0x04, 0x01, 0, 0];
        Assert.Equal(expected, DiagnosticIpc.ResumeRuntime());
    }

    [Fact]
    public void Only_the_servers_OK_header_is_OK()
    {
        byte[] ok = [.. Encoding.ASCII.GetBytes("DOTNET_IPC_V1\0"), 24, 0, 0xFF, 0x00, 0, 0];
        byte[] error = [.. ok[..16], 0xFF, 0xFF, 0, 0];
        Assert.True(DiagnosticIpc.IsOk(ok));
        Assert.Equal(24, DiagnosticIpc.PacketSize(ok));
        Assert.False(DiagnosticIpc.IsOk(error));
        Assert.False(DiagnosticIpc.IsOk(DiagnosticIpc.ResumeRuntime()));
    }
}
