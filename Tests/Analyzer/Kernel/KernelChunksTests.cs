using System.Text;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>
/// The kernel session read in chunks (<see cref="KernelChunks"/>, <see cref="PerfScriptReader.ReadChunks"/>): every
/// stage carries its state from chunk to chunk, so the answer may not depend on where the records are cut.
/// </summary>
public sealed class KernelChunksTests
{
    /// <summary>
    /// The golden kernel-session recording (1,198 samples, 2,655 switches) analyzed with chunks of 50 records (210
    /// chunks of its 10,500 records: runs, stretches, marker waits and thread windows all cross chunk edges) and read whole: the same
    /// report, figure for figure, in every format the figures reach (JSON holds them all at full precision), with
    /// the call trees' ledger kept.
    /// </summary>
    [Fact]
    public void Every_figure_is_the_same_however_the_kernel_session_is_cut_into_chunks()
    {
        var dir = Repo.NewTempDir("chunks");
        try
        {
            var zip = Repo.CopyGoldenRecording("kernel-session", dir);
            var whole = Analyze(zip, int.MaxValue);
            var chunked = Analyze(zip, 50);
            Assert.Contains("\"cpuSource\": \"kernel\"", whole.Json);
            Assert.Equal(whole.Json, chunked.Json);
            Assert.Equal(whole.Ledger, chunked.Ledger);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }

        static (string Json, string Ledger) Analyze(string zip, int recordsPerChunk)
        {
            var json = Golden.GoldenAnalysisTests.JsonInProcess(zip, new AnalyzerOptions { CacheEtlx = false, CollectHotMethods = true, KernelRecordsPerChunk = recordsPerChunk }, out var analysis);
            var ledger = new StringBuilder();
            foreach (var s in analysis.Samples!.RunSamples) ledger.Append(FormattableString.Invariant($"{s.ThreadId} {s.TimeMs:R} {s.WeightMs:R} {s.Frames.Length} {s.InGc}\n"));
            return (json, ledger.ToString());
        }
    }

    private const string Text = """
                  dotnet 100/100   1.000000000: cpu-clock/period=1001001,call-graph=fp/: 
        	ffffffff8225f2d9 pvm_irq_enable ([kernel.kallsyms])
        	           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)

                  worker 100/101   1.001000000: sched:sched_switch: prev_comm=worker prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
                  worker 100/101   1.001001000: PERF_RECORD_SWITCH OUT
                  dotnet 100/100   1.002000000: sched:sched_waking: comm=worker pid=101 prio=120 target_cpu=001
                  worker 100/101   1.003000000: PERF_RECORD_SWITCH IN
                  worker 100/101   1.004000000: cpu-clock/period=1001001,call-graph=fp/: 
        	ffffffff8225f2d9 pvm_irq_enable ([kernel.kallsyms])
        	           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)

                  dotnet 100/100   1.005000000: PERF_RECORD_LOST 7
                  dotnet 100/100   1.006000000: cpu-clock/period=1001001,call-graph=fp/: 
        	           2724b __libc_start_main (/usr/lib/x86_64-linux-gnu/libc.so.6)

        """;

    [Fact]
    public void Chunks_hold_the_records_of_the_whole_in_order_each_with_its_own_frames_and_stacks()
    {
        var whole = PerfScriptReader.Read(Utf8(Text), 1.0, out var wholeBad);
        var chunks = new List<KernelTrace>();
        var bad = PerfScriptReader.ReadChunks(Utf8(Text), 1.0, recordsPerChunk: 2, chunks.Add);
        Assert.Equal(wholeBad, bad);
        // 3 samples, 1 switch, 1 OUT record, 1 wake-up, 1 IN record: 7 records, 2 a chunk, and the last (empty or not) closes.
        Assert.Equal(4, chunks.Count);
        Assert.Equal(whole.Samples.Select(s => (s.TimeNs, s.ThreadId)), chunks.SelectMany(c => c.Samples).Select(s => (s.TimeNs, s.ThreadId)));
        Assert.Equal(whole.SwitchOuts.Select(s => (s.TimeNs, s.State)), chunks.SelectMany(c => c.SwitchOuts).Select(s => (s.TimeNs, s.State)));
        Assert.Equal(whole.SwitchIns, chunks.SelectMany(c => c.SwitchIns));
        Assert.Equal(whole.SwitchOutRecords, chunks.SelectMany(c => c.SwitchOutRecords));
        Assert.Equal(whole.Wakings.Select(w => w.ThreadId), chunks.SelectMany(c => c.Wakings).Select(w => w.ThreadId));
        // Each sample's frames, read through its own chunk's ids, are the whole read's.
        Assert.Equal(whole.Samples.Select(s => FramesOf(whole, s.StackId)), chunks.SelectMany(c => c.Samples.Select(s => FramesOf(c, s.StackId))));
        // Ids start again in each chunk: nothing the reader keeps grows with the addresses a long trace samples.
        Assert.True(chunks.Count(c => c.Frames.Count > 0 && c.Frames[0].Address == 0xffffffff8225f2d9) >= 2, "each chunk names its own frames");
        // The totals ride on the last chunk; the thread names are one table.
        Assert.Equal(7, chunks[^1].LostEvents);
        Assert.Same(chunks[0].ThreadNames, chunks[^1].ThreadNames);
        Assert.Equal("worker", chunks[^1].ThreadNames[101]);
    }

    [Fact]
    public void The_read_ahead_stops_at_its_bound_and_a_dispose_lets_the_reader_go()
    {
        // 3 samples a chunk of 1 and one chunk ahead: the reader must wait, not read the text whole into memory.
        var text = new SlowStream(Utf8(string.Concat(Enumerable.Repeat(Text, 200))));
        var chunks = KernelChunks.Reading(text, 1.0, recordsPerChunk: 1, ahead: 1);
        var (samples, anything) = chunks.Peek();
        Assert.True(samples && anything);
        Thread.Sleep(200);
        Assert.True(text.Position < text.Length / 2, $"read {text.Position} of {text.Length} bytes with one chunk taken");
        chunks.Dispose();
        Assert.True(text.Closed, "the reader closes the text once stopped");
    }

    [Fact]
    public void Taking_every_chunk_gives_every_record_once_and_the_totals()
    {
        using var chunks = KernelChunks.Reading(Utf8(Text + "not a perf line\n"), 1.0, recordsPerChunk: 3, ahead: 1);
        Assert.Equal((true, true), chunks.Peek());
        var taken = chunks.Take().ToList();
        Assert.Equal(3, taken.Sum(c => c.Samples.Count));
        Assert.Equal(1, chunks.BadLines);
        Assert.Null(chunks.Failure);
        Assert.Equal(7, chunks.Last!.LostEvents);
        Assert.Throws<InvalidOperationException>(() => chunks.Take().ToList());
    }

    [Fact]
    public void An_io_error_part_way_keeps_what_was_read_and_says_why()
    {
        using var chunks = KernelChunks.Reading(new SlowStream(Utf8(Text), failAfter: 600), 1.0, recordsPerChunk: 1, ahead: 1);
        chunks.Peek();
        var taken = chunks.Take().ToList();
        Assert.NotEmpty(taken.SelectMany(c => c.Samples));
        Assert.Contains("disk gone", chunks.Failure);
    }

    private static string[] FramesOf(KernelTrace trace, int stack)
    {
        var ids = new List<int>();
        if (stack >= 0) trace.Stacks.CopyTo(stack, ids);
        return [.. ids.Select(id => $"{trace.Frames[id].Address:x} {trace.Frames[id].Symbol}")];
    }

    private static MemoryStream Utf8(string text) => new(Encoding.UTF8.GetBytes(text.ReplaceLineEndings("\n")));

    /// <summary>A text read a little at a time (as a pipe gives it), that says how far it was read, whether it was closed, and can fail part way.</summary>
    private sealed class SlowStream(MemoryStream inner, int failAfter = int.MaxValue) : Stream
    {
        public bool Closed { get; private set; }
        public override bool CanRead => true;
        public override bool CanSeek => false;
        public override bool CanWrite => false;
        public override long Length => inner.Length;
        public override long Position { get => inner.Position; set => throw new NotSupportedException(); }
        public override void Flush() { }
        public override int Read(byte[] buffer, int offset, int count) =>
            inner.Position >= failAfter ? throw new IOException("disk gone") : inner.Read(buffer, offset, Math.Min(count, 64));
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        protected override void Dispose(bool disposing) { Closed = true; base.Dispose(disposing); }
    }
}
