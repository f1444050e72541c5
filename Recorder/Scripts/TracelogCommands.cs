using System.Globalization;
using System.Text;
using EtwSerializerProfiler.Recorder.Etw;

namespace EtwSerializerProfiler.Recorder.Scripts;

/// <summary>
/// tracelog command lines. tracelog is the one tool that sets ETW's per-event filters (-stackwalkFilter, -EventIdFilter;
/// Windows 8.1+, silently ignored before), takes provider GUIDs only as #guid, and wants the number of ids before the ids.
/// </summary>
public static class TracelogCommands
{
    /// <summary>tracelog's documented limit per event-id or stackwalk filter.</summary>
    public const int MaxFilterIds = 64;

    /// <summary>
    /// -flag is tracelog's legacy 32-bit mask with 0x01000000 and up reserved; keywords above that go through
    /// -matchanykw. Small masks keep -flags so the lines read like the ones in the field report this tool follows.
    /// </summary>
    public const ulong LargestFlagsMask = 0x00FFFFFF;

    public static string EnableProvider(string session, Guid provider, ulong keywords, int? level, IReadOnlyList<int> stackEventIds, IReadOnlyList<int> disabledEventIds)
    {
        var sb = new StringBuilder($"tracelog -enableex {Quote(session)} -guid #{provider:D}");
        sb.Append(keywords <= LargestFlagsMask ? " -flags " : " -matchanykw ").Append(Hex(keywords));
        if (level is { } l) sb.Append(" -level ").Append(l.ToString(CultureInfo.InvariantCulture));
        if (stackEventIds.Count > 0) sb.Append(" -stackwalkFilter -in ").Append(IdList(stackEventIds));
        if (disabledEventIds.Count > 0) sb.Append(" -EventIdFilter -out ").Append(IdList(disabledEventIds));
        return sb.ToString();
    }

    public static string EnableProvider(string session, EtwProviderPlan p) =>
        EnableProvider(session, p.Guid, p.Keywords, (int)p.Level, p.StackEventIds, p.DisabledEventIds);

    /// <summary>The NT Kernel Logger with the profile's kernel groups and stack walks, to a file or an in-memory ring.</summary>
    public static string StartKernel(EtwSessionPlan plan, string? file, int bufferKb, int minBuffers, int maxBuffers)
    {
        var sb = new StringBuilder($"tracelog -start {Quote(EtwSessionNames.NtKernelLogger)}");
        sb.Append(file is null ? " -buffering" : $" -f {Quote(file)}");
        sb.Append(CultureInfo.InvariantCulture, $" -b {bufferKb} -min {minBuffers} -max {maxBuffers}");
        sb.Append(" -eflag ").Append(string.Join('+', plan.XperfKernelGroups));
        if (plan.StackwalkNames.Count > 0) sb.Append(" -stackwalk ").Append(string.Join('+', plan.StackwalkNames));
        return sb.ToString();
    }

    public static string StartUser(string session, string? file, int bufferKb, int minBuffers, int maxBuffers)
    {
        var target = file is null ? " -buffering" : $" -f {Quote(file)}";
        return string.Create(CultureInfo.InvariantCulture, $"tracelog -start {Quote(session)}{target} -b {bufferKb} -min {minBuffers} -max {maxBuffers}");
    }

    public static string Stop(string session) => $"tracelog -stop {Quote(session)}";

    public static string Hex(ulong value) => "0x" + value.ToString("X", CultureInfo.InvariantCulture);

    /// <summary>tracelog wants the count first: "-in 1 80" is one id, 80.</summary>
    public static string IdList(IReadOnlyList<int> ids)
    {
        if (ids.Count > MaxFilterIds) throw new ArgumentException($"tracelog filters take at most {MaxFilterIds} event ids, got {ids.Count}", nameof(ids));
        return string.Join(' ', new[] { ids.Count }.Concat(ids).Select(i => i.ToString(CultureInfo.InvariantCulture)));
    }

    /// <summary>Names with spaces ("NT Kernel Logger") or %VARIABLES% that may hold spaces are quoted.</summary>
    public static string Quote(string value) => value.Contains(' ', StringComparison.Ordinal) || value.Contains('%', StringComparison.Ordinal) ? $"\"{value}\"" : value;
}
