using System.Diagnostics;
using System.IO.Compression;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Kernel;

/// <summary>
/// Which native modules perf could not name, said at recording time so a user knows which debug files to fetch: for
/// each module with a build id (`perf buildid-list`), the CPU samples whose innermost frame is in it and how many of
/// those perf left as [unknown]. perf has already looked where it looks by itself (the module's own symbol table, its
/// .gnu_debuglink, /usr/lib/debug, ~/.debug by build id); what is still unnamed needs `esp analyze --symbols DIR`.
/// </summary>
public static class UnnamedNativeModules
{
    public static List<UnnamedNativeModule> Find(string perfPath, string dataPath, string scriptPath)
    {
        var modules = BuildIds(perfPath, dataPath).Where(m => !m.IsKernel).ToDictionary(m => m.Path, StringComparer.Ordinal);
        if (modules.Count == 0) return [];
        var leaves = LeafCounts(scriptPath);
        return [.. leaves.Where(l => l.Value.Unnamed > 0 && modules.ContainsKey(l.Key))
            .OrderByDescending(l => l.Value.Unnamed).ThenBy(l => l.Key, StringComparer.Ordinal)
            .Select(l => new UnnamedNativeModule { Path = l.Key, BuildId = modules[l.Key].BuildId, LeafSamples = l.Value.All, UnnamedLeafSamples = l.Value.Unnamed })];
    }

    /// <summary>
    /// Per module path, the CPU samples whose first frame line ("\taddress symbol (path)") is in it, and how many of
    /// those are [unknown]. Reads the stored text (PerfRecording.ScriptArguments): a header line, then frames.
    /// </summary>
    public static Dictionary<string, (long All, long Unnamed)> LeafCounts(string scriptPath)
    {
        var counts = new Dictionary<string, (long All, long Unnamed)>(StringComparer.Ordinal);
        using var file = File.OpenRead(scriptPath);
        using var gz = new GZipStream(file, CompressionMode.Decompress);
        using var reader = new StreamReader(gz, bufferSize: 1 << 16);
        var leafNext = false;
        try
        {
            while (reader.ReadLine() is { } line)
            {
                if (line.Length == 0) { leafNext = false; continue; }
                if (line[0] != '\t') { leafNext = line.Contains(": " + PerfRecording.CpuClock, StringComparison.Ordinal); continue; }
                if (!leafNext) continue;
                leafNext = false;
                var open = line.IndexOf(" (", StringComparison.Ordinal);
                if (open < 0 || line[^1] != ')') continue;
                var module = line[(open + 2)..^1];
                var (all, unnamed) = counts.GetValueOrDefault(module);
                counts[module] = (all + 1, unnamed + (line.AsSpan(0, open).EndsWith(" [unknown]") ? 1 : 0));
            }
        }
        catch (InvalidDataException) { } // cut short: what was read counts
        return counts;
    }

    private static IReadOnlyList<PerfModule> BuildIds(string perfPath, string dataPath)
    {
        var psi = new ProcessStartInfo(perfPath) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in PerfRecording.BuildIdListArguments(dataPath)) psi.ArgumentList.Add(a);
        using var p = Process.Start(psi) ?? throw new IOException("could not start perf buildid-list");
        _ = p.StandardError.ReadToEndAsync();
        var text = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        return p.ExitCode == 0 ? PerfBuildIds.Parse(text) : [];
    }
}
