using System.Buffers.Binary;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// The few messages of the runtime's diagnostics IPC protocol (dotnet/diagnostics, documentation/design-docs/
/// ipc-protocol.md) that the port proxy speaks itself; everything else passes through it byte for byte.
/// </summary>
public static class DiagnosticIpc
{
    /// <summary>"ADVR_V1\0", the instance cookie (GUID), the PID (uint64), 2 reserved bytes: 34 bytes in all.</summary>
    public const int AdvertiseSize = 8 + 16 + 8 + 2;

    /// <summary>"DOTNET_IPC_V1\0", the packet size (uint16), command set, command id, 2 reserved bytes.</summary>
    public const int HeaderSize = 14 + 2 + 1 + 1 + 2;

    private static ReadOnlySpan<byte> AdvertiseMagic => "ADVR_V1\0"u8;
    private static ReadOnlySpan<byte> HeaderMagic => "DOTNET_IPC_V1\0"u8;

    private const byte ProcessCommandSet = 0x04;
    private const byte ResumeRuntimeCommand = 0x01;
    private const byte ServerCommandSet = 0xFF;
    private const byte ServerOk = 0x00;

    /// <summary>The runtime's first message on every connection it opens to a port in connect mode.</summary>
    public static RuntimeAdvertise? ParseAdvertise(ReadOnlySpan<byte> message)
    {
        if (message.Length < AdvertiseSize || !message[..8].SequenceEqual(AdvertiseMagic)) return null;
        var cookie = new Guid(message.Slice(8, 16));
        var pid = BinaryPrimitives.ReadUInt64LittleEndian(message.Slice(24, 8));
        return pid > int.MaxValue ? null : new RuntimeAdvertise(cookie, (int)pid);
    }

    /// <summary>Process/ResumeRuntime: a header with no payload; lets a runtime suspended at this port go on.</summary>
    public static byte[] ResumeRuntime()
    {
        var packet = new byte[HeaderSize];
        HeaderMagic.CopyTo(packet);
        BinaryPrimitives.WriteUInt16LittleEndian(packet.AsSpan(14), HeaderSize);
        packet[16] = ProcessCommandSet;
        packet[17] = ResumeRuntimeCommand;
        return packet;
    }

    /// <summary>Whether a response header is the server's OK (an error is command id 0xFF with an HRESULT payload).</summary>
    public static bool IsOk(ReadOnlySpan<byte> header) =>
        header.Length >= HeaderSize && header[..14].SequenceEqual(HeaderMagic) && header[16] == ServerCommandSet && header[17] == ServerOk;

    /// <summary>The whole packet's size from its header, so the payload after it can be read.</summary>
    public static int PacketSize(ReadOnlySpan<byte> header) => BinaryPrimitives.ReadUInt16LittleEndian(header[14..]);
}

/// <summary>Who opened a connection: the runtime instance (a new cookie per process start) and its process id.</summary>
public readonly record struct RuntimeAdvertise(Guid Cookie, int ProcessId);
