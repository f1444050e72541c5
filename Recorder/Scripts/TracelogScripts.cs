using EtwSerializerProfiler.Recorder.Etw;

namespace EtwSerializerProfiler.Recorder.Scripts;

/// <summary>scripts/tracelog/*.cmd: the profile recorded with tracelog, the only tool with per-event ETW filters.</summary>
public static class TracelogScripts
{
    public const string Folder = "scripts/tracelog";

    public static IEnumerable<GeneratedFile> Generate(EtwSessionPlan plan)
    {
        yield return new($"{Folder}/start.cmd", Start(plan, circular: false));
        yield return new($"{Folder}/start-circular.cmd", Start(plan, circular: true));
        yield return new($"{Folder}/save-circular.cmd", SaveCircular(plan));
        yield return new($"{Folder}/stop.cmd", Stop(plan));
    }

    private static string Start(EtwSessionPlan plan, bool circular)
    {
        var script = new CmdScript(plan.ProfileName, circular
            ? "Starts kernel and CLR sessions into in-memory ring buffers (-buffering): save the last minutes with save-circular.cmd, end with stop.cmd."
            : "Starts kernel and CLR sessions writing kernel.etl and user.etl; end with stop.cmd, which merges them into trace.etl.");
        if (plan.CpuSampleIntervalMs is { } ms)
            script.Rem($"CPU samples every {ms} ms. Long sessions: run `xperf -setprofint 100000 cached` first for one every 10 ms.");
        script.Run(TracelogCommands.StartKernel(plan, circular ? null : @"%TRACE_DIR%\kernel.etl", 1024, 256, 1024));
        script.Run(TracelogCommands.StartUser(plan.SessionName, circular ? null : @"%TRACE_DIR%\user.etl", 1024, 64, 256));
        script.Rem("Stacks only for the listed event ids, and high-volume events dropped at the source (Windows 8.1+).");
        foreach (var p in plan.Providers) script.Run(TracelogCommands.EnableProvider(plan.SessionName, p));
        script.Line($"echo tracing: sessions {TracelogCommands.Quote(EtwSessionNames.NtKernelLogger)} and {plan.SessionName}");
        return script.Build("tracelog could not start the sessions: elevated prompt? already running (run stop.cmd or esp cleanup)?");
    }

    private static string SaveCircular(EtwSessionPlan plan)
    {
        var script = new CmdScript(plan.ProfileName, "Saves both ring buffers of start-circular.cmd to trace.etl and keeps tracing.");
        script.Rem("Rundown first, so methods jitted before the buffers wrapped have names.");
        script.Run(TracelogCommands.EnableProvider(plan.SessionName, plan.Rundown));
        script.WaitForRundown();
        script.Rem("tracelog flushes one session per call; xperf flushes both in one call, so kernel and user data cover the same time.");
        script.Run(XperfCommands.FlushBoth(plan.SessionName, @"%TRACE_DIR%\user.etl", @"%TRACE_DIR%\kernel.etl"));
        script.Run(XperfCommands.Merge(@"%TRACE_DIR%\user.etl", @"%TRACE_DIR%\kernel.etl", @"%TRACE_DIR%\trace.etl"), XperfCommands.MergeFailure);
        script.Line(@"echo saved %TRACE_DIR%\trace.etl");
        return script.Build("flush or merge failed: are the sessions running (start-circular.cmd)? is xperf (Windows Performance Toolkit) on PATH?");
    }

    private static string Stop(EtwSessionPlan plan)
    {
        var script = new CmdScript(plan.ProfileName, "Rundown, stops both sessions and merges kernel.etl and user.etl into trace.etl (xperf -merge: tracelog cannot merge).");
        script.Run(TracelogCommands.EnableProvider(plan.SessionName, plan.Rundown));
        script.WaitForRundown();
        script.Run(TracelogCommands.Stop(plan.SessionName));
        script.Run(TracelogCommands.Stop(EtwSessionNames.NtKernelLogger));
        script.Run(XperfCommands.Merge(@"%TRACE_DIR%\user.etl", @"%TRACE_DIR%\kernel.etl", @"%TRACE_DIR%\trace.etl"), XperfCommands.MergeFailure);
        script.Line(@"echo trace: %TRACE_DIR%\trace.etl");
        return script.Build("could not stop the sessions: elevated prompt? were they started (tracelog -l lists sessions)?");
    }
}
