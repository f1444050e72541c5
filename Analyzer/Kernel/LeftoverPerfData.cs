using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// A kernel.perf.data left without its `perf script` text: the recorder converts it when the recording ends, so a
/// killed recorder leaves it unconverted. The analyzer converts it the recorder's way (<see cref="PerfScriptConversion"/>),
/// after repairing it when perf was killed too (<see cref="CutPerfData"/>), and keeps the text in the trace folder
/// (in the temp folder when the trace folder cannot be written), so the next analysis reads it at once.
/// </summary>
internal static class LeftoverPerfData
{
    /// <returns>The text's path, or null with the reason in <paramref name="warnings"/>.</returns>
    public static string? Convert(TraceInput input, List<string> warnings, IProgress<string>? progress)
    {
        if (input.KernelDataPath is not { } data) return null;
        var name = TraceFolderLayout.KernelData;
        if (PerfTool.Locate() is not { } perf)
        {
            warnings.Add($"{name} has no {TraceFolderLayout.KernelScript} beside it and cannot be converted: {PerfTool.NotFoundReason()}; CPU columns are EventPipe's");
            return null;
        }
        string? repaired = null;
        try
        {
            var source = data;
            var how = "";
            if (CutPerfData.IsCut(data))
            {
                repaired = EspTempFiles.NewPath("-repaired.perf.data");
                ExitJanitor.DeleteOnExit(repaired);
                progress?.Report($"repairing {name} (perf was killed before it finished the file)...");
                var bytes = CutPerfData.Repair(perf, data, repaired);
                source = repaired;
                how = $"; perf was killed before it finished the file: its {bytes / 1048576.0:F1} MB of records read, those still in perf's buffers are lost";
            }
            progress?.Report($"converting {name} ({new FileInfo(data).Length / 1048576.0:F1} MB) with perf script, as the recorder would...");
            var script = Target(Path.GetDirectoryName(Path.GetFullPath(data))!);
            var partial = script + $".{Environment.ProcessId}.tmp";
            try
            {
                PerfScriptConversion.ConvertAsync(perf, source, partial, CancellationToken.None).GetAwaiter().GetResult();
                File.Move(partial, script, overwrite: true);
            }
            finally
            {
                File.Delete(partial);
            }
            // Why it was left: perf died mid-recording (the manifest says when), or the recorder itself did not finish.
            var why = TraceManifest.TryParse(input.ManifestBytes)?.Kernel?.Died is { } died
                ? $"perf died {died.AtSeconds:F1} s after esp record started" : input.ManifestPath is null ? "the recorder did not finish" : "the recorder did not convert it";
            warnings.Add($"{name} had no {TraceFolderLayout.KernelScript} ({why}): converted now with perf script into {script}{how}");
            return script;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception)
        {
            warnings.Add($"{name} has no {TraceFolderLayout.KernelScript} beside it and perf could not convert it ({ex.Message}); CPU columns are EventPipe's");
            return null;
        }
        finally
        {
            if (repaired is not null) File.Delete(repaired);
        }
    }

    /// <summary>The trace folder's own name for the text, or a temp file when the folder cannot be written.</summary>
    private static string Target(string folder)
    {
        var probe = Path.Combine(folder, $".esp-write-{Environment.ProcessId}");
        try
        {
            File.WriteAllBytes(probe, []);
            File.Delete(probe);
            return Path.Combine(folder, TraceFolderLayout.KernelScript);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            var temp = EspTempFiles.NewPath("-" + TraceFolderLayout.KernelScript);
            ExitJanitor.DeleteOnExit(temp);
            return temp;
        }
    }
}
