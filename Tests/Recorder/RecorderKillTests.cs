using System.Diagnostics;
using EtwSerializerProfiler.Tests.Recorder.Processes;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>
/// `esp record` killed outright (SIGKILL: no handler, no finally) in the middle of recording the real benchmark: the
/// benchmark must not run on to completion as an orphan, and nothing esp made may stay in the temp folder.
/// </summary>
[EndToEnd]
public sealed class RecorderKillTests
{
    private static readonly TimeSpan ChildGone = TimeSpan.FromSeconds(2);

    [PlatformFact("Linux", "the parent-death signal is Linux's")]
    public async Task Killing_esp_record_kills_its_child_and_leaves_nothing_in_the_temp_folder()
    {
        var dir = Repo.NewTempDir("kill");
        var psi = new ProcessStartInfo("dotnet") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        // Enough runs to last well past the kill (tens of seconds), whatever the machine's load.
        foreach (var a in new[] { Path.Combine(Repo.BinDir, "esp.dll"), "record", "--out", Path.Combine(dir, "t"), "--n", "50000", "--runs", "1000", "--serializers", "Reflection", "--quiet" })
            psi.ArgumentList.Add(a);
        using var esp = Process.Start(psi)!;
        var stderr = esp.StandardError.ReadToEndAsync();
        _ = esp.StandardOutput.ReadToEndAsync();
        try
        {
            var trace = Path.Combine(dir, "t", "trace.nettrace");
            var clock = Stopwatch.StartNew();
            while (!esp.HasExited && clock.Elapsed < TimeSpan.FromSeconds(60) && (!File.Exists(trace) || new FileInfo(trace).Length < 512 * 1024))
                await Task.Delay(100);
            if (esp.HasExited) Assert.Fail($"esp record ended before it could be killed: {await stderr}");
            // The benchmark, and whatever else esp started (the exit janitor; a kernel session's perf where there is one).
            var children = ChildrenOf(esp.Id);
            var child = children.Single(c => c.CommandLine.Contains("SerializerBenchmark.dll", StringComparison.Ordinal)).Pid;
            var mine = OwnedBy(esp.Id, child);
            Assert.Contains(mine, e => e.EndsWith(".sock", StringComparison.Ordinal)); // the diagnostic port, while recording

            esp.Kill(entireProcessTree: false); // SIGKILL to esp alone, as `kill -9` would
            await esp.WaitForExitAsync();

            Assert.True(ChildProcessLauncherTests.GoneWithin(child, ChildGone), $"the benchmark (pid {child}) still runs {ChildGone.TotalSeconds} s after esp was killed");
            foreach (var (pid, commandLine) in children)
                Assert.True(ChildProcessLauncherTests.GoneWithin(pid, ChildGone), $"esp's child {pid} ({commandLine}) still runs {ChildGone.TotalSeconds} s after esp was killed");
            // The exit janitor removes them as soon as esp's end of its pipe closes: give it a moment, not a timing.
            var left = OwnedBy(esp.Id, child);
            for (var i = 0; i < 50 && left.Count > 0; i++) { await Task.Delay(100); left = OwnedBy(esp.Id, child); }
            Assert.True(left.Count == 0, $"left in {Path.GetTempPath()}: {string.Join(", ", left)}");
        }
        finally
        {
            if (!esp.HasExited) esp.Kill(entireProcessTree: true);
            foreach (var c in ChildrenOf(esp.Id)) { try { Process.GetProcessById(c.Pid).Kill(); } catch (ArgumentException) { } } // exited already
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>What esp and its child put in the temp folder: esp's sockets, conversions and pipes, and both runtimes' diagnostic sockets.</summary>
    private static List<string> OwnedBy(int esp, int child) =>
        [.. Directory.EnumerateFileSystemEntries(Path.GetTempPath()).Select(Path.GetFileName).OfType<string>().Where(n =>
            n.StartsWith($"esp-{esp}-", StringComparison.Ordinal) || n.StartsWith($"CoreFxPipe_esp-heap-{esp}-", StringComparison.Ordinal)
            || n.StartsWith($"dotnet-diagnostic-{esp}-", StringComparison.Ordinal) || n.StartsWith($"dotnet-diagnostic-{child}-", StringComparison.Ordinal))];

    internal static List<(int Pid, string CommandLine)> ChildrenOf(int parent)
    {
        var children = new List<(int, string)>();
        foreach (var dir in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(dir), out var pid)) continue;
            try
            {
                var stat = File.ReadAllText(Path.Combine(dir, "stat"));
                var ppid = int.Parse(stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[1], System.Globalization.CultureInfo.InvariantCulture);
                if (ppid == parent) children.Add((pid, File.ReadAllText(Path.Combine(dir, "cmdline")).Replace('\0', ' ')));
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // ended while we looked
        }
        return children;
    }
}
