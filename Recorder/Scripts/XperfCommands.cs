using System.Globalization;
using System.Text;
using EtwSerializerProfiler.Recorder.Etw;

namespace EtwSerializerProfiler.Recorder.Scripts;

/// <summary>
/// xperf command lines. xperf has no per-event stack or event-id filters (tracelog adds them afterwards), but it can
/// flush several sessions in one call: flushing the kernel session first can take minutes on a busy machine and
/// leaves a gap between kernel and user data, so both are always flushed together.
/// </summary>
public static class XperfCommands
{
    /// <summary>xperf -SetProfInt counts in 100 ns units: 10000 = 1 ms.</summary>
    public static long ProfileIntervalUnits(double milliseconds) => (long)Math.Round(milliseconds * 10_000);

    public static string StartKernelAndUser(EtwSessionPlan plan, string userSession, string? kernelFile, string? userFile, string profInt)
    {
        var sb = new StringBuilder($"xperf -start {Quote(EtwSessionNames.NtKernelLogger)} -on {string.Join('+', plan.XperfKernelGroups)}");
        if (plan.StackwalkNames.Count > 0) sb.Append(" -stackwalk ").Append(string.Join('+', plan.StackwalkNames));
        if (plan.CpuSampleIntervalMs is not null) sb.Append(" -SetProfInt ").Append(profInt);
        sb.Append(Target(kernelFile, 1024, 256, 1024));
        sb.Append(" -start ").Append(Quote(userSession)).Append(" -on ").Append(string.Join('+', plan.Providers.Select(Provider)));
        sb.Append(Target(userFile, 1024, 64, 256));
        return sb.ToString();
    }

    /// <summary>GUID:keywords:level; xperf accepts 64-bit keyword masks, unlike tracelog's -flags.</summary>
    public static string Provider(EtwProviderPlan p) =>
        string.Create(CultureInfo.InvariantCulture, $"{p.Guid:D}:{TracelogCommands.Hex(p.Keywords)}:{(int)p.Level}");

    /// <summary>Both sessions in one xperf call, user session first, as the field report recommends.</summary>
    public static string FlushBoth(string userSession, string userFile, string kernelFile) =>
        $"xperf -flush {Quote(userSession)} -f {Quote(userFile)} -flush {Quote(EtwSessionNames.NtKernelLogger)} -f {Quote(kernelFile)}";

    /// <summary>Enabling the CLR rundown provider makes the runtime log the names of methods already jitted.</summary>
    public static string Rundown(string userSession, EtwProviderPlan rundown) => $"xperf -capturestate {Quote(userSession)} {Provider(rundown)}";

    public static string StopBoth(string userSession) => $"xperf -stop {Quote(userSession)} -stop {Quote(EtwSessionNames.NtKernelLogger)}";

    /// <summary>What a failed merge leaves behind, so "trace: ..." is only printed for a trace that exists.</summary>
    public const string MergeFailure = @"xperf -merge did not write %TRACE_DIR%\trace.etl (user.etl and kernel.etl are kept; is xperf on PATH? did the sessions write both files?)";

    public static string Merge(string userFile, string kernelFile, string merged) => $"xperf -merge {Quote(userFile)} {Quote(kernelFile)} {Quote(merged)}";

    private static string Target(string? file, int bufferKb, int minBuffers, int maxBuffers) =>
        string.Create(CultureInfo.InvariantCulture, $"{(file is null ? " -buffering" : $" -f {Quote(file)}")} -BufferSize {bufferKb} -MinBuffers {minBuffers} -MaxBuffers {maxBuffers}");

    private static string Quote(string value) => TracelogCommands.Quote(value);
}
