namespace EtwSerializerProfiler.Common;

/// <summary>A module perf recorded samples in, as perf filed it: its build id and path (`perf buildid-list`).</summary>
public sealed record PerfModule(string BuildId, string Path)
{
    public string Name => System.IO.Path.GetFileName(Path) is { Length: > 0 } n ? n : Path;
    /// <summary>"[kernel.kallsyms]", "[vdso]": the kernel's, named from /proc/kallsyms, not from debug files.</summary>
    public bool IsKernel => Path.StartsWith("[", StringComparison.Ordinal);
}

/// <summary>`perf buildid-list -i perf.data` (<see cref="PerfRecording.BuildIdListArguments"/>) read: "buildid path" per line.</summary>
public static class PerfBuildIds
{
    public static IReadOnlyList<PerfModule> Parse(string text)
    {
        var modules = new List<PerfModule>();
        foreach (var raw in text.Split('\n'))
        {
            var line = raw.Trim();
            var space = line.IndexOf(' ');
            if (space < 2 || space > 128) continue;
            var id = line.Substring(0, space);
            if (id.All(c => c is >= '0' and <= '9' or >= 'a' and <= 'f')) modules.Add(new PerfModule(id, line.Substring(space + 1).Trim()));
        }
        return modules;
    }
}
