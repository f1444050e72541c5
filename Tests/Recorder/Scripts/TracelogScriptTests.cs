using EtwSerializerProfiler.Recorder.Etw;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Recorder.Scripts;

namespace EtwSerializerProfiler.Tests.Recorder.Scripts;

/// <summary>
/// Golden command lines. The first two are the field report's own tracelog examples (seed 000), reproduced from
/// the same inputs; the rest are the profile's, derived from them with the tracelog syntax Microsoft documents.
/// </summary>
public sealed class TracelogScriptTests
{
    private static readonly Guid Clr = new("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    private static readonly EtwSessionPlan Plan = WindowsToolFiles.PlanFor(ProfileCatalog.Get("default"));

    [Fact]
    public void Seed_example_stack_walks_only_for_ExceptionThrown()
    {
        Assert.Equal(
            "tracelog -enableex DotNetSession -guid #e13c0d23-ccbc-4e12-931b-d9cc2eee27e4 -flags 0x8094 -stackwalkFilter -in 1 80",
            TracelogCommands.EnableProvider("DotNetSession", Clr, 0x8094, level: null, stackEventIds: [80], disabledEventIds: []));
    }

    [Fact]
    public void Seed_example_drops_23_high_volume_dwm_events()
    {
        int[] dropped = [2, 9, 6, 244, 8, 204, 7, 14, 13, 110, 19, 137, 21, 111, 57, 58, 66, 67, 68, 112, 113, 192, 193];
        Assert.Equal(
            "tracelog -enableex DWMSession -guid #9e9bba3c-2e38-40cb-99f4-9e8281425164 -flags 0x1 -level 4 -EventIdFilter -out 23 2 9 6 244 8 204 7 14 13 110 19 137 21 111 57 58 66 67 68 112 113 192 193",
            TracelogCommands.EnableProvider("DWMSession", new Guid("9e9bba3c-2e38-40cb-99f4-9e8281425164"), 0x1, 4, [], dropped));
    }

    [Fact]
    public void Profile_clr_line_uses_matchanykw_because_WaitHandle_is_above_tracelogs_flag_range()
    {
        var clr = Plan.Providers.Single(p => p.Guid == Clr);
        Assert.Equal(
            "tracelog -enableex EtwSerializerProfiler-Script -guid #e13c0d23-ccbc-4e12-931b-d9cc2eee27e4 -matchanykw 0x4800000C019 -level 5 -stackwalkFilter -in 4 1 10 80 81 -EventIdFilter -out 9 5 23 33 38 39 40 41 82 86",
            TracelogCommands.EnableProvider(Plan.SessionName, clr));
    }

    [Fact]
    public void Kernel_session_lists_groups_and_stack_walks_in_one_start()
    {
        Assert.Equal(
            "tracelog -start \"NT Kernel Logger\" -f \"%TRACE_DIR%\\kernel.etl\" -b 1024 -min 256 -max 1024 -eflag PROC_THREAD+LOADER+PROFILE+CSWITCH+DISPATCHER -stackwalk Profile+CSwitch+ReadyThread",
            TracelogCommands.StartKernel(Plan, @"%TRACE_DIR%\kernel.etl", 1024, 256, 1024));
        Assert.Equal(
            "tracelog -start \"NT Kernel Logger\" -buffering -b 1024 -min 256 -max 1024 -eflag PROC_THREAD+LOADER+PROFILE+CSWITCH+DISPATCHER -stackwalk Profile+CSwitch+ReadyThread",
            TracelogCommands.StartKernel(Plan, null, 1024, 256, 1024));
        Assert.Equal("tracelog -start EtwSerializerProfiler-Script -buffering -b 1024 -min 64 -max 256", TracelogCommands.StartUser(Plan.SessionName, null, 1024, 64, 256));
    }

    [Fact]
    public void Filters_carry_the_count_first_and_refuse_more_than_64_ids()
    {
        Assert.Equal("3 1 2 3", TracelogCommands.IdList([1, 2, 3]));
        Assert.Throws<ArgumentException>(() => TracelogCommands.IdList(Enumerable.Range(1, 65).ToList()));
    }

    [Fact]
    public void Scripts_start_with_filters_and_stop_with_rundown_then_merge()
    {
        var files = TracelogScripts.Generate(Plan).ToDictionary(f => f.RelativePath, f => f.Content);
        var start = Lines(files["scripts/tracelog/start.cmd"]);
        Assert.Contains(TracelogCommands.EnableProvider(Plan.SessionName, Plan.Providers[0]), start);
        Assert.Contains(start, l => l.StartsWith("tracelog -start \"NT Kernel Logger\" -f ", StringComparison.Ordinal));
        Assert.Contains(start, l => l.StartsWith("tracelog -enableex EtwSerializerProfiler-Script -guid #3c205442-14fb-5713-c99e-4e4e92f1abe2 ", StringComparison.Ordinal));
        Assert.Contains(Lines(files["scripts/tracelog/start-circular.cmd"]), l => l.Contains("-buffering", StringComparison.Ordinal));

        var stop = Lines(files["scripts/tracelog/stop.cmd"]);
        var rundown = stop.FindIndex(l => l.Contains("#a669021c-c450-4609-a035-5af59af4df18 -flags 0x1B8 -level 5", StringComparison.Ordinal));
        var stopUser = stop.IndexOf("tracelog -stop EtwSerializerProfiler-Script");
        var stopKernel = stop.IndexOf("tracelog -stop \"NT Kernel Logger\"");
        Assert.True(rundown >= 0 && rundown < stopUser && stopUser < stopKernel, string.Join("\n", stop));
        Assert.Equal($"timeout /t {CmdScript.RundownWaitSeconds} /nobreak >nul", stop[stopUser - 1]);
        XperfScriptTests.AssertMergeIsChecked(stop);
        // Saving the ring buffers flushes both sessions in a single call.
        Assert.Single(Lines(files["scripts/tracelog/save-circular.cmd"]), l => l.StartsWith("xperf -flush", StringComparison.Ordinal));
    }

    [Fact]
    public void Batch_files_use_crlf_and_stop_on_the_first_failure()
    {
        foreach (var f in TracelogScripts.Generate(Plan).Concat(XperfScripts.Generate(Plan)))
        {
            Assert.DoesNotContain("\n", f.Content.Replace("\r\n", "", StringComparison.Ordinal), StringComparison.Ordinal);
            var lines = Lines(f.Content);
            Assert.Equal("@echo off", lines[0]);
            for (var i = 0; i < lines.Count; i++)
                if (lines[i].StartsWith("tracelog -", StringComparison.Ordinal) || lines[i].StartsWith("xperf -", StringComparison.Ordinal))
                {
                    // Every tool call is checked, and every label it may jump to exists and ends the script with exit 1.
                    Assert.StartsWith("if errorlevel 1 goto failed", lines[i + 1], StringComparison.Ordinal);
                    var label = lines.IndexOf(":" + lines[i + 1]["if errorlevel 1 goto ".Length..]);
                    Assert.True(label > 0, $"{f.RelativePath}: no label for '{lines[i + 1]}'");
                    Assert.StartsWith("echo failed: ", lines[label + 1], StringComparison.Ordinal);
                    Assert.Equal("exit /b 1", lines[label + 2]);
                }
        }
    }

    internal static List<string> Lines(string text) => text.Split("\r\n", StringSplitOptions.RemoveEmptyEntries).ToList();
}
