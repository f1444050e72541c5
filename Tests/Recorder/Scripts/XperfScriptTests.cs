using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Recorder.Scripts;

namespace EtwSerializerProfiler.Tests.Recorder.Scripts;

/// <summary>xperf lines checked against the field report's flush/merge examples (seed 000) and the profile.</summary>
public sealed class XperfScriptTests
{
    private static readonly Dictionary<string, string> Files =
        XperfScripts.Generate(WindowsToolFiles.PlanFor(ProfileCatalog.Get("default"))).ToDictionary(f => f.RelativePath, f => f.Content);

    [Fact]
    public void Flush_and_merge_have_the_seeds_shape()
    {
        // Seed: xperf -flush "UserSession" -f user.etl -flush "NT Kernel Logger" -f kernel.etl
        Assert.Equal("xperf -flush UserSession -f user.etl -flush \"NT Kernel Logger\" -f kernel.etl", XperfCommands.FlushBoth("UserSession", "user.etl", "kernel.etl"));
        // Seed: xperf -merge user.etl kernel.etl merged.etl
        Assert.Equal("xperf -merge user.etl kernel.etl merged.etl", XperfCommands.Merge("user.etl", "kernel.etl", "merged.etl"));
    }

    [Fact]
    public void Saving_ring_buffers_flushes_user_and_kernel_in_one_call_after_rundown()
    {
        var lines = TracelogScriptTests.Lines(Files["scripts/xperf/save-circular.cmd"]);
        var flush = Assert.Single(lines, l => l.StartsWith("xperf -flush", StringComparison.Ordinal));
        Assert.Equal("xperf -flush EtwSerializerProfiler-Script -f \"%TRACE_DIR%\\user.etl\" -flush \"NT Kernel Logger\" -f \"%TRACE_DIR%\\kernel.etl\"", flush);
        var rundown = lines.IndexOf("xperf -capturestate EtwSerializerProfiler-Script a669021c-c450-4609-a035-5af59af4df18:0x1B8:5");
        Assert.True(rundown >= 0 && rundown < lines.IndexOf(flush));
        AssertWaitsForRundown(lines, rundown, lines.IndexOf(flush));
        Assert.True(lines.IndexOf(flush) < lines.FindIndex(l => l.StartsWith("xperf -merge", StringComparison.Ordinal)));
        AssertMergeIsChecked(lines);
    }

    [Fact]
    public void Start_enables_kernel_and_user_sessions_in_one_call_with_the_profiles_sampling_interval()
    {
        var lines = TracelogScriptTests.Lines(Files["scripts/xperf/start.cmd"]);
        Assert.Contains("if \"%PROFINT%\"==\"\" set PROFINT=10000", lines);
        Assert.Contains(
            "xperf -start \"NT Kernel Logger\" -on PROC_THREAD+LOADER+PROFILE+CSWITCH+DISPATCHER -stackwalk Profile+CSwitch+ReadyThread -SetProfInt %PROFINT% -f \"%TRACE_DIR%\\kernel.etl\" -BufferSize 1024 -MinBuffers 256 -MaxBuffers 1024"
            + " -start EtwSerializerProfiler-Script -on e13c0d23-ccbc-4e12-931b-d9cc2eee27e4:0x4800000C019:5+3c205442-14fb-5713-c99e-4e4e92f1abe2:0xFFFFFFFFFFFFFFFF:4+b72d0890-7a18-5b01-3bbd-89af5f3b954f:0xFFFFFFFFFFFFFFFF:4 -f \"%TRACE_DIR%\\user.etl\" -BufferSize 1024 -MinBuffers 64 -MaxBuffers 256",
            lines);
        // The per-event filters xperf lacks are added by tracelog when it is installed.
        Assert.Contains(lines, l => l.StartsWith("where tracelog >nul 2>nul && tracelog -enableex EtwSerializerProfiler-Script -guid #e13c0d23", StringComparison.Ordinal) && l.Contains("-stackwalkFilter -in 4 1 10 80 81", StringComparison.Ordinal));
        Assert.Contains(TracelogScriptTests.Lines(Files["scripts/xperf/start-circular.cmd"]), l => l.StartsWith("xperf -start", StringComparison.Ordinal) && l.Contains(" -buffering -BufferSize", StringComparison.Ordinal) && !l.Contains(" -f ", StringComparison.Ordinal));
    }

    [Fact]
    public void Stop_rundown_then_stops_both_then_merges()
    {
        var lines = TracelogScriptTests.Lines(Files["scripts/xperf/stop.cmd"]);
        var stop = lines.IndexOf("xperf -stop EtwSerializerProfiler-Script -stop \"NT Kernel Logger\"");
        var rundown = lines.FindIndex(l => l.StartsWith("xperf -capturestate", StringComparison.Ordinal));
        Assert.True(stop > rundown);
        AssertWaitsForRundown(lines, rundown, stop);
        Assert.True(stop < lines.FindIndex(l => l.Contains("xperf -merge", StringComparison.Ordinal)));
        AssertMergeIsChecked(lines);
    }

    /// <summary>
    /// The runtime writes its rundown on its own thread after the request returns, so something must wait between the
    /// request and the stop or flush (the tracelog scripts always did; the xperf ones went straight on).
    /// </summary>
    internal static void AssertWaitsForRundown(List<string> lines, int rundown, int stopOrFlush)
    {
        var wait = lines.IndexOf($"timeout /t {CmdScript.RundownWaitSeconds} /nobreak >nul");
        Assert.True(rundown < wait && wait < stopOrFlush, string.Join("\n", lines));
        Assert.True(CmdScript.RundownWaitSeconds >= 5);
    }

    /// <summary>"trace: ..." or "saved ..." only follows a merge that succeeded; a failed merge ends with its own message.</summary>
    internal static void AssertMergeIsChecked(List<string> lines)
    {
        var merge = Assert.Single(lines, l => l.StartsWith("xperf -merge", StringComparison.Ordinal));
        Assert.Equal("xperf -merge \"%TRACE_DIR%\\user.etl\" \"%TRACE_DIR%\\kernel.etl\" \"%TRACE_DIR%\\trace.etl\"", merge);
        var check = lines[lines.IndexOf(merge) + 1];
        Assert.StartsWith("if errorlevel 1 goto failed", check, StringComparison.Ordinal);
        var label = ":" + check["if errorlevel 1 goto ".Length..];
        Assert.Equal($"echo failed: {XperfCommands.MergeFailure} 1>&2", lines[lines.IndexOf(label) + 1]);
        Assert.Equal("exit /b 1", lines[lines.IndexOf(label) + 2]);
        var success = lines.FindIndex(l => l.StartsWith("echo trace:", StringComparison.Ordinal) || l.StartsWith("echo saved", StringComparison.Ordinal));
        Assert.True(success > lines.IndexOf(merge) + 1 && success < lines.IndexOf("exit /b 0"));
    }

    [Theory]
    [InlineData(1.0, 10_000)]
    [InlineData(10.0, 100_000)]
    [InlineData(0.125, 1_250)]
    public void Profile_interval_is_in_100_ns_units(double ms, long units) => Assert.Equal(units, XperfCommands.ProfileIntervalUnits(ms));
}
