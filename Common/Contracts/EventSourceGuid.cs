using System.Security.Cryptography;
using System.Text;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// The name-based GUID EventSource assigns to a provider (RFC 4122 v5 over the upper-cased name, with the
/// EventSource namespace). ETW tools (tracelog, WPR, WPA regions) need the GUID, not the name.
/// </summary>
public static class EventSourceGuid
{
    private static readonly byte[] Namespace =
    [
        0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8, 0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB,
    ];

    public static Guid FromName(string name)
    {
        var nameBytes = Encoding.BigEndianUnicode.GetBytes(name.ToUpperInvariant());
        var input = new byte[Namespace.Length + nameBytes.Length];
        Namespace.CopyTo(input, 0);
        nameBytes.CopyTo(input, Namespace.Length);
#pragma warning disable CA5350 // SHA1 is what the EventSource naming scheme specifies, not a security use.
        var hash = SHA1.HashData(input);
#pragma warning restore CA5350
        var a = BitConverter.ToInt32(hash, 0);
        var b = BitConverter.ToInt16(hash, 4);
        var c = (short)((BitConverter.ToInt16(hash, 6) & 0x0FFF) | 0x5000);
        return new Guid(a, b, c, hash[8], hash[9], hash[10], hash[11], hash[12], hash[13], hash[14], hash[15]);
    }
}
