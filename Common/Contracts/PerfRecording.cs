using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// The Linux kernel session's contract between the recorder (Recorder/Kernel: `perf record`, then `perf script` into
/// the trace folder) and the analyzer (Analyzer/Kernel/PerfScriptReader): the events, the sample period, and the
/// exact `perf script` fields the reader parses.
/// </summary>
public static class PerfRecording
{
    /// <summary>CPU samples: one every <see cref="PeriodNs"/> of on-CPU time (ETW's Profile).</summary>
    public const string CpuClock = "cpu-clock";
    /// <summary>A thread leaving the CPU (ETW's ContextSwitch).</summary>
    public const string SchedSwitch = "sched:sched_switch";
    /// <summary>A thread made runnable, in the waker's context (ETW's ReadyThread).</summary>
    public const string SchedWaking = "sched:sched_waking";

    /// <summary>
    /// Added to the profile's whole milliseconds: a fixed period, not -F (frequency mode also throttles the
    /// tracepoints), 1,001 ns off so samples do not fall in lock step with 1 ms timers (EventPipe's sampler, the
    /// scheduler tick) and see the same phase of them every time.
    /// </summary>
    public const long PeriodOffsetNs = 1_001;

    /// <summary>The CPU sampling interval of the default profile (Profiles/profiles.json; a test keeps them equal).</summary>
    public const double DefaultSamplingMs = 1.0;

    /// <summary>The cpu-clock period for a profile's sampling interval.</summary>
    public static long PeriodNs(double samplingMs) => (long)Math.Round(samplingMs * 1_000_000) + PeriodOffsetNs;

    /// <summary>
    /// The period the default profile records with (1.001001 ms): what the analyzer assumes for a manifest that
    /// does not give one.
    /// </summary>
    public static double DefaultPeriodMs => PeriodNs(DefaultSamplingMs) / 1e6;

    /// <summary>perf's clock for its events: EventPipe's on Linux, so both traces share one time line.</summary>
    public const string Clock = "CLOCK_MONOTONIC";

    /// <summary>`perf record` options for the exact switch-in and switch-out times of the process's own threads.</summary>
    public const string SwitchEventsOption = "--switch-events";

    /// <summary>The fields of each `perf script` line, in the order <see cref="ScriptArguments"/> asks for them.</summary>
    public const string ScriptFields = "comm,pid,tid,time,event,trace,ip,sym,dso";

    /// <summary>
    /// The exact `perf script` the analyzer's reader expects: nanosecond times, mmap records (to turn file offsets
    /// back into addresses), switch records (switch-ins) and lost records (a full buffer is reported).
    /// </summary>
    public static IReadOnlyList<string> ScriptArguments(string dataPath) =>
        ["script", "-i", dataPath, "--ns", "--show-mmap-events", "--show-switch-events", "--show-lost-events", "-F", ScriptFields];

    /// <summary>
    /// The same `perf script`, with perf's build-id cache moved to <paramref name="buildIdDir"/> (`perf --buildid-dir`):
    /// perf then looks for each module's debug file at DIR/.build-id/xx/rest/debug, which is how `esp analyze --symbols`
    /// hands it a symbol folder without touching the user's own cache (Analyzer/Symbols).
    /// </summary>
    public static IReadOnlyList<string> ScriptArguments(string dataPath, string buildIdDir) => ["--buildid-dir", buildIdDir, .. ScriptArguments(dataPath)];

    /// <summary>`perf buildid-list`: the build id and path of each module perf recorded samples in (from perf.data's header).</summary>
    public static IReadOnlyList<string> BuildIdListArguments(string dataPath) => ["buildid-list", "-i", dataPath];

    /// <summary>The cpu-clock event spec: "cpu-clock/period=1001001,call-graph=fp/".</summary>
    public static string CpuClockSpec(long periodNs, bool stacks) =>
        $"{CpuClock}/period={periodNs.ToString(CultureInfo.InvariantCulture)},call-graph={(stacks ? "fp" : "no")}/";

    /// <summary>A tracepoint's spec: "sched:sched_switch/call-graph=fp/".</summary>
    public static string TracepointSpec(string name, bool stacks) => $"{name}/call-graph={(stacks ? "fp" : "no")}/";
}
