using System.Buffers.Binary;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>
/// The repair of a perf.data whose perf was killed, on a hand-made file with the layout perf writes (the header,
/// one attribute, records): what is kept and what the header then says. No tracepoint attribute, so perf is not run.
/// </summary>
public sealed class CutPerfDataTests
{
    private const int AttrBytes = 128 + 16; // perf_event_attr, then the section of its ids
    private const int DataAt = 104 + AttrBytes;

    /// <summary>A sample (16 bytes), a FINISHED_ROUND (8), a sample after it (24), and a record cut in the middle.</summary>
    private static byte[] KilledFile(bool withRound = true)
    {
        var file = new List<byte>();
        var head = new byte[104];
        "PERFILE2"u8.CopyTo(head);
        BinaryPrimitives.WriteUInt64LittleEndian(head.AsSpan(8), 104);
        BinaryPrimitives.WriteUInt64LittleEndian(head.AsSpan(16), AttrBytes);
        BinaryPrimitives.WriteUInt64LittleEndian(head.AsSpan(24), 104);
        BinaryPrimitives.WriteUInt64LittleEndian(head.AsSpan(32), AttrBytes);
        BinaryPrimitives.WriteUInt64LittleEndian(head.AsSpan(40), DataAt);
        // data size 0: perf writes it when it ends. Features flagged as perf flags them when it starts.
        head[72] = 0xfe;
        head[73] = 0x7f;
        file.AddRange(head);
        var attr = new byte[AttrBytes];
        BinaryPrimitives.WriteUInt32LittleEndian(attr, 1); // PERF_TYPE_SOFTWARE (cpu-clock): no tracepoint formats needed
        BinaryPrimitives.WriteUInt64LittleEndian(attr.AsSpan(16), 1_001_001); // its sample period, as the recorder sets it
        file.AddRange(attr);
        file.AddRange(Record(9, 16));
        if (withRound) file.AddRange(Record(68, 8));
        file.AddRange(Record(9, 24));
        file.AddRange(Record(9, 40).Take(12)); // the write perf was killed in
        return [.. file];
    }

    private static byte[] Record(uint type, ushort size)
    {
        var r = new byte[size];
        BinaryPrimitives.WriteUInt32LittleEndian(r, type);
        BinaryPrimitives.WriteUInt16LittleEndian(r.AsSpan(6), size);
        return r;
    }

    [Fact]
    public void Keeps_the_records_up_to_perfs_last_round_and_says_so_in_the_header()
    {
        var dir = Repo.NewTempDir("cutperf");
        try
        {
            var cut = Path.Combine(dir, "kernel.perf.data");
            File.WriteAllBytes(cut, KilledFile());
            Assert.True(CutPerfData.IsCut(cut));
            Assert.Equal(1_001_001, PerfDataPeriod.CpuClockNs(cut)); // what the missing manifest would have said

            var repaired = Path.Combine(dir, "repaired.data");
            Assert.Equal(16 + 8, CutPerfData.Repair("/no/perf/needed", cut, repaired));
            var bytes = File.ReadAllBytes(repaired);
            Assert.Equal(DataAt + 16 + 8, bytes.Length); // the sample after the round and the cut record are dropped
            Assert.Equal((ulong)(16 + 8), BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan(48)));
            Assert.All(bytes.AsSpan(72, 32).ToArray(), b => Assert.Equal(0, b)); // no feature section was written
            Assert.Equal(File.ReadAllBytes(cut).AsSpan(104, DataAt + 24 - 104).ToArray(), bytes.AsSpan(104, DataAt + 24 - 104).ToArray());
            Assert.False(CutPerfData.IsCut(repaired));

            // Without a round (perf killed before its first write ended one): every whole record is kept.
            File.WriteAllBytes(cut, KilledFile(withRound: false));
            Assert.Equal(16 + 24, CutPerfData.Repair("/no/perf/needed", cut, repaired));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public void A_finished_perf_data_is_not_cut()
    {
        var dir = Repo.NewTempDir("cutperf");
        try
        {
            var file = KilledFile();
            BinaryPrimitives.WriteUInt64LittleEndian(file.AsSpan(48), 24);
            var path = Path.Combine(dir, "kernel.perf.data");
            File.WriteAllBytes(path, file);
            Assert.False(CutPerfData.IsCut(path));
            File.WriteAllBytes(path, "not perf data at all"u8.ToArray());
            Assert.False(CutPerfData.IsCut(path));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
