using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// The benchmark's measured calls: a --threads helper thread's samples belong to the run only while one of these is
/// on its stack (idle thread-pool spinning or a progress callback during the window is not the serializer's cost).
/// </summary>
internal static class MeasuredCalls
{
    private static readonly string[] Frames = [.. Common.MeasuredCallFrames.All];

    public static bool Any(IReadOnlyList<StackFrame> frames)
    {
        foreach (var f in frames)
            if (Is(f)) return true;
        return false;
    }

    public static bool Is(StackFrame frame)
    {
        foreach (var m in Frames)
            if (frame.Method.Contains(m, StringComparison.Ordinal)) return true;
        return false;
    }
}
