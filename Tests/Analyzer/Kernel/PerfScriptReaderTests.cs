using System.IO.Compression;
using EtwSerializerProfiler.Analyzer.Kernel;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>
/// The `perf script` text the recorder stores, read back: lines shaped exactly as perf 6.1 prints them with the
/// recorder's arguments (copied from a real recording, addresses and names kept).
/// </summary>
public sealed class PerfScriptReaderTests
{
    private const string Script = """
        swapper     0/0         0.000000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276508) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
        dotnet     0/0         0.000000000: PERF_RECORD_MMAP2 12759/12759: [0x7f98d4c50000(0x1000) @ 0 00:01 1243 0]: r-xs /memfd:doublemapper (deleted)
                  dotnet 12759/12759   617.932334866: PERF_RECORD_MMAP2 12759/12759: [0x7f98d4c90000(0xb4c000) @ 0 fe:00 350922 0]: r-xp /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll
                  dotnet 12759/12759   617.940000000: PERF_RECORD_MMAP2 12759/12759: [0x7f9947270000(0x5000) @ 0x111000 00:01 102 3018075430]: r-xs /memfd:doublemapper (deleted)
                  dotnet 12759/12759   617.950000000: PERF_RECORD_MMAP2 12759/12759: [0x7f9947280000(0x1000) @ 0x2000 00:01 102 3018075430]: rw-s /memfd:doublemapper (deleted)
                  dotnet 12759/12759   618.000000001: cpu-clock/period=1001001,call-graph=fp/: 
        	ffffffff8225f2d9 pvm_irq_enable ([kernel.kallsyms])
        	ffffffff81000c82 asm_exc_page_fault ([kernel.kallsyms])
        	          1128dd [unknown] (/memfd:doublemapper (deleted))
        	          2a0f77 [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll)
        	           b48fb [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libclrjit.so)
        	           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)

        .NET TP Worker 12759/12765   618.000500000: sched:sched_switch: prev_comm=.NET TP Worker prev_pid=12765 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
        	ffffffff82265488 __schedule ([kernel.kallsyms])
        	           d0043 __GI___futex_abstimed_wait_cancelable64 (/usr/lib/x86_64-linux-gnu/libc.so.6)

        .NET TP Worker 12759/12765   618.000501000: PERF_RECORD_SWITCH OUT
                  dotnet 12759/12759   618.001000000: sched:sched_waking: comm=.NET TP Worker pid=12765 prio=120 target_cpu=001 ffffffff813b4986 try_to_wake_up ([kernel.kallsyms])
        .NET TP Worker 12759/12765   618.001200000: PERF_RECORD_SWITCH IN
                  dotnet 12759/12759   618.002000000: sched:sched_switch: prev_comm=dotnet prev_pid=12759 prev_prio=120 prev_state=R+ ==> next_comm=kworker/1:2 next_pid=621 next_prio=120
        	ffffffff82265488 __schedule ([kernel.kallsyms])

                  dotnet 12759/12759   618.003000000: cpu-clock/period=1001001,call-graph=fp/: 
        	ffffffff8225f2d9 pvm_irq_enable ([kernel.kallsyms])
        	ffffffff81000c82 asm_exc_page_fault ([kernel.kallsyms])
        	          1128dd [unknown] (/memfd:doublemapper (deleted))
        	          2a0f77 [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll)
        	           b48fb [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libclrjit.so)
        	           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)

                  dotnet 12759/12759   618.004000000: PERF_RECORD_LOST lost 17
        """;

    private static KernelTrace Read(string text, out int bad, bool switchStacks = true) =>
        PerfScriptReader.Read(new MemoryStream(System.Text.Encoding.UTF8.GetBytes(text)), 1.001001, out bad, switchStacks);

    [Fact]
    public void By_default_switches_and_wakings_are_read_without_their_stacks_and_samples_are_read_alike()
    {
        var all = Read(Script, out var badAll);
        var lean = Read(Script, out var bad, switchStacks: false);
        Assert.Equal((0, 0), (badAll, bad));
        Assert.Equal(all.SwitchOuts.Select(o => o with { StackId = KernelTrace.NoStack }), lean.SwitchOuts);
        Assert.Equal(all.Wakings.Select(w => w with { StackId = KernelTrace.NoStack }), lean.Wakings);
        Assert.Equal(all.SwitchIns, lean.SwitchIns);
        Assert.Equal(all.SwitchOutRecords, lean.SwitchOutRecords);
        Assert.Equal(all.Samples.Select(s => (s.TimeNs, s.ThreadId)), lean.Samples.Select(s => (s.TimeNs, s.ThreadId)));
        Assert.Equal(all.Samples.Select(s => all.Stacks.ToArray(s.StackId).Select(id => all.Frames[id])), lean.Samples.Select(s => lean.Stacks.ToArray(s.StackId).Select(id => lean.Frames[id])));
        // __schedule is a switch's frame only: not read at all.
        Assert.DoesNotContain(lean.Frames, f => f.Symbol == "__schedule");
        Assert.Contains(all.Frames, f => f.Symbol == "__schedule");
    }

    [Fact]
    public void Samples_switches_wakings_and_switch_ins_are_read_with_their_threads_and_nanosecond_times()
    {
        var trace = Read(Script, out var bad);
        Assert.Equal(0, bad);
        Assert.Equal(12759, trace.ProcessId);
        Assert.Equal(2, trace.Samples.Count);
        Assert.Equal(618_000_000_001, trace.Samples[0].TimeNs);
        Assert.Equal(12759, trace.Samples[0].ThreadId);

        Assert.Equal(2, trace.SwitchOuts.Count);
        var waiting = trace.SwitchOuts[0];
        Assert.Equal((12765, 'S', 0), (waiting.ThreadId, waiting.State, waiting.NextThreadId));
        Assert.Equal("__schedule", trace.Frames[trace.Stacks.ToArray(waiting.StackId)[0]].Symbol);
        Assert.Equal((12759, 'R', 621), (trace.SwitchOuts[1].ThreadId, trace.SwitchOuts[1].State, trace.SwitchOuts[1].NextThreadId));

        var waking = Assert.Single(trace.Wakings);
        Assert.Equal((12759, 12765, 618_001_000_000L), (waking.WakerThreadId, waking.ThreadId, waking.TimeNs));
        Assert.Equal((618_001_200_000L, 12765), Assert.Single(trace.SwitchIns));
        // perf's own record of the same switch-out, a microsecond after the tracepoint: the edge of on-CPU time.
        Assert.Equal((618_000_501_000L, 12765), Assert.Single(trace.SwitchOutRecords));
        Assert.Equal(".NET TP Worker", trace.ThreadNames[12765]);
        Assert.Equal(17, trace.LostEvents);
    }

    [Fact]
    public void Identical_stacks_are_interned_and_frames_are_leaf_first()
    {
        var trace = Read(Script, out _);
        Assert.Equal(trace.Samples[0].StackId, trace.Samples[1].StackId);
        var frames = trace.Stacks.ToArray(trace.Samples[0].StackId).Select(id => trace.Frames[id]).ToList();
        Assert.Equal(6, frames.Count);
        Assert.Equal(("pvm_irq_enable", true), (frames[0].Symbol, frames[0].Kernel));
        Assert.Equal(("__libc_start_call_main", false), (frames[^1].Symbol, frames[^1].Kernel));
    }

    [Fact]
    public void Offsets_perf_prints_for_unnamed_code_in_mapped_files_become_the_addresses_that_ran()
    {
        var trace = Read(Script, out _);
        var frames = trace.Stacks.ToArray(trace.Samples[0].StackId).Select(id => trace.Frames[id]).ToList();
        // JIT code in the W^X double mapping: offset 0x1128dd of the memfd, mapped executable at 0x7f9947270000 from
        // offset 0x111000; the later read-write view of the same file is not code and must not be used.
        Assert.Equal(0x7f9947270000UL + (0x1128ddUL - 0x111000UL), frames[2].Address);
        // ReadyToRun code in CoreLib, mapped whole at 0x7f98d4c90000.
        Assert.Equal(0x7f98d4c90000UL + 0x2a0f77UL, frames[3].Address);
        // A stripped ELF library has no managed code: its offset becomes an address too, and simply matches no method.
        Assert.Equal("/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libclrjit.so", frames[4].Dso);
        // Named frames keep perf's name and are not moved.
        Assert.Equal(0x2724aUL, frames[5].Address);
    }

    [Fact]
    public void A_cut_gzip_keeps_what_was_read_and_counts_the_damage_instead_of_throwing()
    {
        var path = Path.Combine(Path.GetTempPath(), $"esp-test-{Guid.NewGuid():N}.txt.gz");
        try
        {
            using (var file = File.Create(path))
            using (var gz = new GZipStream(file, CompressionLevel.Fastest))
            {
                var bytes = System.Text.Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat(Script, 200)));
                gz.Write(bytes);
            }
            var whole = new FileInfo(path).Length;
            using (var file = new FileStream(path, FileMode.Open)) file.SetLength(whole / 2);
            var trace = PerfScriptReader.Read(path, 1.0, out var bad);
            Assert.InRange(trace.Samples.Count, 1, 399);
            Assert.True(bad >= 1, "the cut must be reported");
        }
        finally { File.Delete(path); }
    }

    [Fact]
    public void Lines_that_are_not_perf_script_are_counted_not_fatal()
    {
        var trace = Read("garbage without a header\n" + Script + "\n\tnot a frame line (x)\n", out var bad);
        Assert.Equal(2, trace.Samples.Count);
        Assert.True(bad >= 1);
    }

    [Theory]
    [InlineData("        my thread 12 34/56   618.5: cpu-clock/period=1001001,call-graph=fp/: ")]
    [InlineData("dotnet 1/2 3.4:cpu-clock")]
    [InlineData("   7/8 1.000000001: cpu-clock")]
    [InlineData("a 1/2 3.4 5/6 7.8: cpu-clock")]
    [InlineData("x -1/-1 0.5: cpu-clock")]
    public void Header_lines_are_split_as_the_regex_perf_script_was_first_read_with_splits_them(string header)
    {
        // The reader's first version matched headers with this regex; the hand-written parser must agree with it.
        var m = System.Text.RegularExpressions.Regex.Match(header, @"^\s*(?<comm>.*?)\s+(?<pid>-?\d+)/(?<tid>-?\d+)\s+(?<sec>\d+)\.(?<frac>\d+):\s*(?<rest>.*)$");
        Assert.True(m.Success);
        var trace = Read(header + "\n\tffffffff8225f2d9 pvm_irq_enable ([kernel.kallsyms])\n", out var bad);
        Assert.Equal(0, bad);
        var sample = Assert.Single(trace.Samples);
        Assert.Equal(int.Parse(m.Groups["tid"].Value, System.Globalization.CultureInfo.InvariantCulture), sample.ThreadId);
        if (sample.ThreadId > 0) Assert.Equal(m.Groups["comm"].Value, trace.ThreadNames[sample.ThreadId]);
        var frac = m.Groups["frac"].Value.PadRight(9, '0')[..9];
        Assert.Equal(long.Parse(m.Groups["sec"].Value, System.Globalization.CultureInfo.InvariantCulture) * 1_000_000_000 + long.Parse(frac, System.Globalization.CultureInfo.InvariantCulture), sample.TimeNs);
    }

    [Fact]
    public void A_frame_line_read_again_after_a_new_mapping_is_translated_with_the_new_mapping()
    {
        const string text = """
                      dotnet 1/1   1.000000000: PERF_RECORD_MMAP2 1/1: [0x7f0000000000(0x5000) @ 0x111000 00:01 102 0]: r-xs /memfd:doublemapper (deleted)
                      dotnet 1/1   1.100000000: cpu-clock/period=1001001,call-graph=fp/: 
            	          1128dd [unknown] (/memfd:doublemapper (deleted))

                      dotnet 1/1   1.200000000: PERF_RECORD_MMAP2 1/1: [0x7f1000000000(0x5000) @ 0x111000 00:01 102 0]: r-xs /memfd:doublemapper (deleted)
                      dotnet 1/1   1.300000000: cpu-clock/period=1001001,call-graph=fp/: 
            	          1128dd [unknown] (/memfd:doublemapper (deleted))

            """;
        var trace = Read(text, out var bad);
        Assert.Equal(0, bad);
        Assert.Equal([0x7f00000018ddUL, 0x7f10000018ddUL], trace.Samples.Select(s => trace.Frames[trace.Stacks.ToArray(s.StackId)[0]].Address));
    }

    [Fact]
    public void A_mapping_of_another_file_leaves_an_offset_line_translated_as_it_was()
    {
        const string text = """
                      dotnet 1/1   1.000000000: PERF_RECORD_MMAP2 1/1: [0x7f0000000000(0x5000) @ 0x111000 00:01 102 0]: r-xs /memfd:doublemapper (deleted)
                      dotnet 1/1   1.100000000: cpu-clock/period=1001001,call-graph=fp/: 
            	          1128dd [unknown] (/memfd:doublemapper (deleted))

                      dotnet 1/1   1.200000000: PERF_RECORD_MMAP2 1/1: [0x7f2000000000(0x5000) @ 0 00:01 103 0]: r-xp /usr/lib/other.so
                      dotnet 1/1   1.300000000: cpu-clock/period=1001001,call-graph=fp/: 
            	          1128dd [unknown] (/memfd:doublemapper (deleted))
            	            1000 [unknown] (/usr/lib/other.so)

            """;
        var trace = Read(text, out var bad);
        Assert.Equal(0, bad);
        Assert.Equal(trace.Stacks.ToArray(trace.Samples[0].StackId)[0], trace.Stacks.ToArray(trace.Samples[1].StackId)[0]);
        Assert.Equal([0x7f00000018ddUL, 0x7f2000001000UL], trace.Stacks.ToArray(trace.Samples[1].StackId).Select(id => trace.Frames[id].Address));
    }
}
