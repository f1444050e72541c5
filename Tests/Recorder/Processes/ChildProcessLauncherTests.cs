using System.ComponentModel;
using System.Diagnostics;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Processes;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Processes;

/// <summary>Children that die with esp: the launcher's promises, with real processes.</summary>
[EndToEnd]
public sealed class ChildProcessLauncherTests
{
    [Fact]
    public void The_child_is_the_program_itself_with_its_own_id_and_exit_code()
    {
        using var launched = ChildProcessLauncher.Start(Start("/bin/sh", "-c", "exit 7"));
        Assert.True(launched.Process.WaitForExit(30_000));
        Assert.Equal(7, launched.Process.ExitCode);
        Assert.Equal(OperatingSystem.IsLinux() && File.Exists("/usr/bin/setpriv"), launched.DiesWithEsp);

        using var sleeper = ChildProcessLauncher.Start(Start("sleep", "30"));
        // setpriv execs the program (a few milliseconds after it starts): the id esp records, and connects to, is the
        // program's, not a wrapper's.
        if (OperatingSystem.IsLinux())
        {
            var comm = "";
            for (var i = 0; i < 100 && comm != "sleep"; i++, Thread.Sleep(20)) comm = File.ReadAllText($"/proc/{sleeper.Process.Id}/comm").Trim();
            Assert.Equal("sleep", comm);
        }
        sleeper.Process.Kill();
        sleeper.Process.WaitForExit();
    }

    [Fact]
    public void The_child_outlives_the_thread_that_started_it_and_dies_when_released()
    {
        if (!ChildProcessLauncher.ParentDeathSignal) return; // no parent-death signal here: nothing to test
        LaunchedProcess? launched = null;
        // The parent-death signal is tied to the forking thread: a short-lived starter thread must not take the child along.
        var starter = new Thread(() => launched = ChildProcessLauncher.Start(Start("sleep", "60")));
        starter.Start();
        starter.Join();
        Thread.Sleep(500);
        Assert.True(Alive(launched!.Process.Id), "the child died with the thread that asked for it");

        var pid = launched.Process.Id;
        launched.Dispose(); // the keeper thread ends: the kernel kills the child
        Assert.True(GoneWithin(pid, TimeSpan.FromSeconds(2)), "the released child still runs");
    }

    [Fact]
    public void A_program_that_cannot_be_started_fails_as_Process_Start_would()
    {
        var missing = Assert.Throws<Win32Exception>(() => ChildProcessLauncher.Start(Start("/no/such/program")));
        Assert.Contains("No such file or directory", missing.Message, StringComparison.Ordinal);
        Assert.Throws<Win32Exception>(() => ChildProcessLauncher.Start(Start("no-such-program-on-path")));
        if (OperatingSystem.IsWindows()) return;
        var text = Path.Combine(Path.GetTempPath(), $"esp-test-text-{Guid.NewGuid():N}");
        File.WriteAllText(text, "not a program");
        File.SetUnixFileMode(text, UnixFileMode.UserRead | UnixFileMode.UserWrite);
        var notExecutable = Assert.Throws<Win32Exception>(() => ChildProcessLauncher.Start(Start(text)));
        Assert.Contains("Permission denied", notExecutable.Message, StringComparison.Ordinal);
        File.Delete(text);
    }

    [Fact]
    public void Temp_entries_of_an_esp_that_is_gone_are_swept_and_those_of_a_live_one_kept()
    {
        // A real process id that has ended.
        using var ended = Process.Start(Start("/bin/true"))!;
        ended.WaitForExit();
        var dir = Support.Repo.NewTempDir("sweep");
        var stale = Path.Combine(dir, $"esp-{ended.Id}-{Guid.NewGuid():N}.sock");
        var staleFolder = Path.Combine(dir, $"esp-{ended.Id}-{Guid.NewGuid():N}-zip");
        var stalePipe = Path.Combine(dir, $"CoreFxPipe_esp-heap-{ended.Id}-{Guid.NewGuid():N}");
        // perf's control FIFOs (PerfSession): a CI run left 12 of a killed esp's.
        var staleFifos = Path.Combine(dir, $"esp-perf-{ended.Id}-{Guid.NewGuid():N}");
        var live = Path.Combine(dir, $"esp-{Environment.ProcessId}-{Guid.NewGuid():N}.sock");
        var notOurs = Path.Combine(dir, $"esp-test-{ended.Id}-x");
        // The test and viewer set-ups' logs (scripts/): esp's name, no owner.
        var setupLog = Path.Combine(dir, "esp-setup-chromium.log");
        foreach (var f in new[] { stale, stalePipe, live, notOurs, setupLog }) File.WriteAllText(f, "");
        Directory.CreateDirectory(staleFolder);
        File.WriteAllText(Path.Combine(staleFolder, "trace.nettrace"), "");
        Directory.CreateDirectory(staleFifos);
        File.WriteAllText(Path.Combine(staleFifos, "ctl"), "");

        Assert.Equal(4, EspTempFiles.SweepStale(dir));
        Assert.False(File.Exists(stale) || File.Exists(stalePipe) || Directory.Exists(staleFolder) || Directory.Exists(staleFifos));
        Assert.True(File.Exists(live) && File.Exists(notOurs) && File.Exists(setupLog));
        Directory.Delete(dir, recursive: true);
    }

    [Theory]
    [InlineData("esp-123-0123456789abcdef0123456789abcdef.sock", 123)]
    [InlineData("esp-perf-7-0123456789abcdef0123456789abcdef", 7)]
    [InlineData("CoreFxPipe_esp-heap-999999999-0123456789abcdef0123456789abcdef", 999999999)]
    [InlineData("esp-1234567890-0123456789abcdef0123456789abcdef", null)]
    [InlineData("esp-123-0123456789ABCDEF0123456789abcdef", null)]
    [InlineData("esp-123-0123456789abcdef", null)]
    [InlineData("esp-setup-chromium.log", null)]
    [InlineData("CoreFxPipe_other-1-0123456789abcdef0123456789abcdef", null)]
    public void An_entry_is_esps_only_by_its_whole_name_pattern(string name, int? owner) => Assert.Equal(owner, EspTempFiles.OwnerOf(name));

    private static ProcessStartInfo Start(string file, params string[] args)
    {
        var psi = new ProcessStartInfo(file) { UseShellExecute = false };
        foreach (var a in args) psi.ArgumentList.Add(a);
        return psi;
    }

    /// <summary>Running, or a zombie (killed, waiting to be reaped by whoever inherited it) counts as gone.</summary>
    internal static bool Alive(int pid)
    {
        if (OperatingSystem.IsLinux())
        {
            try { var stat = File.ReadAllText($"/proc/{pid}/stat"); return stat[stat.LastIndexOf(')') + 2] != 'Z'; }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return false; }
        }
        try { using var p = Process.GetProcessById(pid); return !p.HasExited; }
        catch (ArgumentException) { return false; }
    }

    internal static bool GoneWithin(int pid, TimeSpan limit)
    {
        var clock = Stopwatch.StartNew();
        while (Alive(pid))
        {
            if (clock.Elapsed > limit) return false;
            Thread.Sleep(20);
        }
        return true;
    }
}
