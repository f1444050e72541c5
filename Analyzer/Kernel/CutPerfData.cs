using System.Buffers.Binary;
using System.Diagnostics;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// A perf.data whose `perf record` was killed (kill -9 of esp record takes perf with it): its records are on disk,
/// but perf writes the data size and the feature sections only when it ends, so perf script refuses the file
/// ("data size field is 0"). The repair is a copy with the data size set to the last whole record, and the one
/// feature perf script needs for tracepoints (the event formats, HEADER_TRACING_DATA) taken from a `perf record` of
/// the same tracepoints on this machine (the formats are the kernel's: the same kernel gives the same ones). Build ids
/// and names come from the files on disk, as the recorder's own conversion takes them.
/// </summary>
internal static class CutPerfData
{
    private const int DataSizeAt = 48;
    private const int FeaturesAt = 72;
    private const int HeaderBytes = 104;
    private const int TracingDataFeature = 1;
    private const uint TracepointType = 2;
    private const uint FinishedRound = 68;

    /// <summary>True for a perf.data (file mode, "PERFILE2") whose header gives no data size: perf never finished it.</summary>
    public static bool IsCut(string dataPath)
    {
        Span<byte> head = stackalloc byte[HeaderBytes];
        using var f = File.OpenRead(dataPath);
        if (f.ReadAtLeast(head, HeaderBytes, throwOnEndOfStream: false) < HeaderBytes) return false;
        return head[..8].SequenceEqual("PERFILE2"u8) && BinaryPrimitives.ReadUInt64LittleEndian(head[DataSizeAt..]) == 0;
    }

    /// <summary>Writes the repaired copy of <paramref name="dataPath"/> to <paramref name="repairedPath"/>.</summary>
    /// <returns>How many bytes of records it holds.</returns>
    /// <exception cref="IOException">the file is not a perf.data, or the formats could not be had from perf.</exception>
    public static long Repair(string perfPath, string dataPath, string repairedPath)
    {
        using var src = new FileStream(dataPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1 << 16);
        var head = new byte[HeaderBytes];
        src.ReadExactly(head);
        var attrSize = (long)BinaryPrimitives.ReadUInt64LittleEndian(head.AsSpan(16));
        var attrsAt = (long)BinaryPrimitives.ReadUInt64LittleEndian(head.AsSpan(24));
        var attrsBytes = (long)BinaryPrimitives.ReadUInt64LittleEndian(head.AsSpan(32));
        var dataAt = (long)BinaryPrimitives.ReadUInt64LittleEndian(head.AsSpan(40));
        if (attrSize < 8 || dataAt < HeaderBytes || dataAt > src.Length) throw new IOException($"{dataPath}: not a perf.data perf can repair (header of {attrSize}-byte attributes, data at {dataAt})");

        var tracepoints = false;
        var type = new byte[4];
        for (var at = attrsAt; at + 4 <= attrsAt + attrsBytes; at += attrSize)
        {
            src.Position = at;
            src.ReadExactly(type);
            tracepoints |= BinaryPrimitives.ReadUInt32LittleEndian(type) == TracepointType;
        }

        // Each record starts with its type (u32), misc (u16) and size (u16). perf drains every CPU's buffer in a round
        // and ends each round with a FINISHED_ROUND record: the data up to the last one holds every CPU's records up
        // to about the same time; after it, a round cut while being written may hold one CPU's and not another's.
        var end = dataAt;
        var lastRound = 0L;
        var record = new byte[8];
        while (end + 8 <= src.Length)
        {
            src.Position = end;
            src.ReadExactly(record);
            var size = BinaryPrimitives.ReadUInt16LittleEndian(record.AsSpan(6));
            if (size < 8 || end + size > src.Length) break;
            end += size;
            if (BinaryPrimitives.ReadUInt32LittleEndian(record) == FinishedRound) lastRound = end;
        }
        if (lastRound > 0) end = lastRound;

        var formats = tracepoints ? TracingDataOfThisMachine(perfPath) : null;
        using (var dst = new FileStream(repairedPath, FileMode.Create, FileAccess.ReadWrite, FileShare.None, 1 << 16))
        {
            src.Position = 0;
            CopyBytes(src, dst, end);
            BinaryPrimitives.WriteUInt64LittleEndian(head.AsSpan(DataSizeAt), (ulong)(end - dataAt));
            head.AsSpan(FeaturesAt, 32).Clear();
            if (formats is not null)
            {
                head[FeaturesAt] = 1 << TracingDataFeature;
                // The feature table (one offset and size per feature set in the bitmap), then the section itself.
                var section = new byte[16];
                BinaryPrimitives.WriteUInt64LittleEndian(section, (ulong)(end + 16));
                BinaryPrimitives.WriteUInt64LittleEndian(section.AsSpan(8), (ulong)formats.Length);
                dst.Write(section);
                dst.Write(formats);
            }
            dst.Position = 0;
            dst.Write(head);
        }
        return end - dataAt;
    }

    /// <summary>The HEADER_TRACING_DATA section of a `perf record` of the recorder's tracepoints around `true`.</summary>
    private static byte[] TracingDataOfThisMachine(string perfPath)
    {
        var donor = EspTempFiles.NewPath("-formats.data");
        try
        {
            var psi = new ProcessStartInfo(perfPath) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
            foreach (var a in new[] { "record", "-q", "-o", donor, "-e", PerfRecording.SchedSwitch, "-e", PerfRecording.SchedWaking, "--", "true" }) psi.ArgumentList.Add(a);
            using (var p = Process.Start(psi) ?? throw new IOException("could not start perf record"))
            {
                var stderr = p.StandardError.ReadToEndAsync();
                p.StandardOutput.ReadToEnd();
                p.WaitForExit();
                if (p.ExitCode != 0 || !File.Exists(donor))
                    throw new IOException($"perf record of the tracepoints' formats exited with code {p.ExitCode}: {stderr.GetAwaiter().GetResult().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault()}");
            }
            var bytes = File.ReadAllBytes(donor);
            var dataAt = BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan(40));
            var dataSize = BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan(DataSizeAt));
            var table = (long)(dataAt + dataSize);
            var index = 0;
            for (var bit = 0; bit < 256; bit++)
            {
                if ((bytes[FeaturesAt + bit / 8] & (1 << (bit % 8))) == 0) continue;
                if (bit == TracingDataFeature)
                {
                    var at = (long)BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan((int)(table + 16 * index)));
                    var size = (long)BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan((int)(table + 16 * index + 8)));
                    return bytes.AsSpan((int)at, (int)size).ToArray();
                }
                index++;
            }
            throw new IOException("perf record wrote no tracepoint formats");
        }
        finally
        {
            File.Delete(donor);
        }
    }

    private static void CopyBytes(Stream from, Stream to, long count)
    {
        var buffer = new byte[1 << 16];
        while (count > 0)
        {
            var n = from.Read(buffer, 0, (int)Math.Min(buffer.Length, count));
            if (n == 0) throw new EndOfStreamException();
            to.Write(buffer, 0, n);
            count -= n;
        }
    }
}
