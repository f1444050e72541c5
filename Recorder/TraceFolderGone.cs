namespace EtwSerializerProfiler.Recorder;

/// <summary>
/// The trace folder (or the trace in it) removed while recording. On Unix nothing fails then: the open trace and
/// perf's file live on unlinked, and every byte written is lost at the end. So the recorder looks, 4 times a second.
/// </summary>
public static class TraceFolderGone
{
    /// <summary>Why the recording at <paramref name="tracePath"/> has nowhere left to go, or null.</summary>
    public static string? Reason(string tracePath)
    {
        var folder = Path.GetDirectoryName(Path.GetFullPath(tracePath))!;
        if (!Directory.Exists(folder)) return $"the trace folder {folder} was removed";
        if (!File.Exists(tracePath)) return $"{Path.GetFileName(tracePath)} was removed from {folder}";
        return null;
    }
}
