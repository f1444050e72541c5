// The esp tool's perf conversion: .NET only (Common is also built for the .NET Framework benchmark, which has no use for it).
#if NET
using System.Diagnostics;
using System.IO.Compression;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// perf.data to the stored `perf script` text (<see cref="PerfRecording.ScriptArguments"/>), gzipped. The recorder runs
/// it when the recording ends; the analyzer runs it on a kernel.perf.data left without its text (a killed recorder).
/// One conversion, so both write the same text.
/// </summary>
public static class PerfScriptConversion
{
    /// <summary>
    /// `perf script` with the fields the analyzer reads, compressed: the trace folder then analyzes anywhere,
    /// without perf or this machine's binaries (perf resolves native and kernel symbols here, at conversion time).
    /// </summary>
    /// <returns>The text's size in bytes.</returns>
    /// <exception cref="IOException">perf failed; its last line says why (the partial text is deleted).</exception>
    public static async Task<long> ConvertAsync(string perfPath, string dataPath, string scriptPath, CancellationToken cancel)
    {
        var psi = new ProcessStartInfo(perfPath) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in PerfRecording.ScriptArguments(dataPath)) psi.ArgumentList.Add(a);
        using var p = Process.Start(psi) ?? throw new IOException("could not start perf script");
        var stderr = p.StandardError.ReadToEndAsync(CancellationToken.None);
        // Written beside it and renamed when whole: a conversion cut short (esp killed meanwhile) leaves no half
        // text for the analyzer to take as the whole session; it converts kernel.perf.data again instead.
        var partial = scriptPath + ".partial";
        try
        {
            await using var file = new FileStream(partial, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16);
            await using var gz = new GZipStream(file, CompressionLevel.Fastest);
            try { await p.StandardOutput.BaseStream.CopyToAsync(gz, cancel).ConfigureAwait(false); }
            catch (OperationCanceledException) { try { p.Kill(); } catch (InvalidOperationException) { } throw; } // Kill: perf exited already
        }
        catch (IOException)
        {
            // A full disk: no half-written text for the analyzer to stumble on.
            try { p.Kill(); } catch (InvalidOperationException) { } // perf exited already
            FileCleanup.TryDelete(partial);
            throw;
        }
        catch (OperationCanceledException)
        {
            FileCleanup.TryDelete(partial);
            throw;
        }
        await p.WaitForExitAsync(CancellationToken.None).ConfigureAwait(false);
        if (p.ExitCode != 0)
        {
            File.Delete(partial);
            var why = (await stderr.ConfigureAwait(false)).Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
                .LastOrDefault(l => !l.Contains("not valid for", StringComparison.Ordinal)) ?? "";
            throw new IOException($"perf script exited with code {p.ExitCode}: {why}");
        }
        File.Move(partial, scriptPath, overwrite: true);
        return new FileInfo(scriptPath).Length;
    }
}
#endif
