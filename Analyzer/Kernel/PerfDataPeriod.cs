using System.Buffers.Binary;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// The cpu-clock sample period as perf.data's own header gives it (the event's attribute, written when perf starts):
/// what the manifest would have said, for a folder whose recorder was killed before writing one.
/// </summary>
internal static class PerfDataPeriod
{
    private const uint SoftwareType = 1;
    private const ulong CpuClockConfig = 0;
    private const ulong FrequencyFlag = 1 << 10;

    /// <returns>The period in ns, or null when the file has no cpu-clock event with a fixed period (or is no perf.data).</returns>
    public static long? CpuClockNs(string dataPath)
    {
        try
        {
            using var f = File.OpenRead(dataPath);
            var head = new byte[104];
            if (f.ReadAtLeast(head, head.Length, throwOnEndOfStream: false) < head.Length || !head.AsSpan(0, 8).SequenceEqual("PERFILE2"u8)) return null;
            var attrSize = (long)BinaryPrimitives.ReadUInt64LittleEndian(head.AsSpan(16));
            var attrsAt = (long)BinaryPrimitives.ReadUInt64LittleEndian(head.AsSpan(24));
            var attrsBytes = (long)BinaryPrimitives.ReadUInt64LittleEndian(head.AsSpan(32));
            if (attrSize < 48) return null;
            var attr = new byte[48];
            for (var at = attrsAt; at + attrSize <= attrsAt + attrsBytes && at + attrSize <= f.Length; at += attrSize)
            {
                f.Position = at;
                f.ReadExactly(attr);
                if (BinaryPrimitives.ReadUInt32LittleEndian(attr) != SoftwareType || BinaryPrimitives.ReadUInt64LittleEndian(attr.AsSpan(8)) != CpuClockConfig) continue;
                if ((BinaryPrimitives.ReadUInt64LittleEndian(attr.AsSpan(40)) & FrequencyFlag) != 0) return null;
                var period = BinaryPrimitives.ReadUInt64LittleEndian(attr.AsSpan(16));
                return period is > 0 and < long.MaxValue ? (long)period : null;
            }
            return null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    }
}
