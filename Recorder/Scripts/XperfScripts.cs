using System.Globalization;
using EtwSerializerProfiler.Recorder.Etw;

namespace EtwSerializerProfiler.Recorder.Scripts;

/// <summary>scripts/xperf/*.cmd: the profile recorded with xperf (Windows Performance Toolkit).</summary>
public static class XperfScripts
{
    public const string Folder = "scripts/xperf";

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
            ? "Starts kernel and user sessions into in-memory ring buffers: save-circular.cmd saves the last minutes, stop.cmd ends them."
            : "Starts kernel and user sessions writing kernel.etl and user.etl; stop.cmd merges them into trace.etl.");
        var units = XperfCommands.ProfileIntervalUnits(plan.CpuSampleIntervalMs ?? EtwSessionPlan.DefaultCpuSampleIntervalMs);
        script.Rem($"PROFINT is in 100 ns units: {units.ToString(CultureInfo.InvariantCulture)} = {(plan.CpuSampleIntervalMs ?? EtwSessionPlan.DefaultCpuSampleIntervalMs).ToString(CultureInfo.InvariantCulture)} ms. For long sessions set PROFINT=100000 (10 ms): a tenth of the samples.");
        script.Line($"if \"%PROFINT%\"==\"\" set PROFINT={units.ToString(CultureInfo.InvariantCulture)}");
        script.Run(XperfCommands.StartKernelAndUser(plan, plan.SessionName, circular ? null : @"%TRACE_DIR%\kernel.etl", circular ? null : @"%TRACE_DIR%\user.etl", "%PROFINT%"));
        script.Rem("xperf has no per-event stack or event-id filters; tracelog (Windows SDK), if present, re-enables the CLR provider with them.");
        foreach (var p in plan.Providers.Where(p => p.StackEventIds.Count > 0 || p.DisabledEventIds.Count > 0))
            script.Line($"where tracelog >nul 2>nul && {TracelogCommands.EnableProvider(plan.SessionName, p)}");
        script.Line($"echo tracing: sessions {TracelogCommands.Quote(EtwSessionNames.NtKernelLogger)} and {plan.SessionName}");
        return script.Build("xperf could not start the sessions: elevated prompt? already running (run stop.cmd or esp cleanup)?");
    }

    private static string SaveCircular(EtwSessionPlan plan)
    {
        var script = new CmdScript(plan.ProfileName, "Saves both ring buffers of start-circular.cmd to trace.etl and keeps tracing.");
        script.Run(XperfCommands.Rundown(plan.SessionName, plan.Rundown));
        script.WaitForRundown();
        script.Rem("One call flushes both: flushing the kernel session alone can take minutes on a busy machine and leave a gap.");
        script.Run(XperfCommands.FlushBoth(plan.SessionName, @"%TRACE_DIR%\user.etl", @"%TRACE_DIR%\kernel.etl"));
        script.Run(XperfCommands.Merge(@"%TRACE_DIR%\user.etl", @"%TRACE_DIR%\kernel.etl", @"%TRACE_DIR%\trace.etl"), XperfCommands.MergeFailure);
        script.Line(@"echo saved %TRACE_DIR%\trace.etl");
        return script.Build("flush or merge failed: are the sessions running (start-circular.cmd)?");
    }

    private static string Stop(EtwSessionPlan plan)
    {
        var script = new CmdScript(plan.ProfileName, "Rundown, stops both sessions and merges kernel.etl and user.etl into trace.etl.");
        script.Run(XperfCommands.Rundown(plan.SessionName, plan.Rundown));
        script.WaitForRundown();
        script.Run(XperfCommands.StopBoth(plan.SessionName));
        script.Run(XperfCommands.Merge(@"%TRACE_DIR%\user.etl", @"%TRACE_DIR%\kernel.etl", @"%TRACE_DIR%\trace.etl"), XperfCommands.MergeFailure);
        script.Line(@"echo trace: %TRACE_DIR%\trace.etl");
        return script.Build("could not stop the sessions: elevated prompt? were they started (xperf -loggers lists them)?");
    }
}
