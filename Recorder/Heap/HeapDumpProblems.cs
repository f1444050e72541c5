namespace EtwSerializerProfiler.Recorder.Heap;

/// <summary>
/// Why a dump could not be written, in one line a user can act on. The runtime only reports "failed" (createdump's
/// own log goes to the child's console), so the likely causes are checked here: disk space, the output path,
/// createdump's presence, and the Linux ptrace restrictions createdump runs into (Yama, containers).
/// </summary>
public static class HeapDumpProblems
{
    /// <summary>Extra room a dump needs beyond the working set (module images, runtime data).</summary>
    private const long DumpOverheadBytes = 64L << 20;

    /// <summary>Checked before asking for the dump: a full disk would otherwise leave a truncated file.</summary>
    public static string? BeforeDump(string path, long workingSetBytes)
    {
        if (Directory.Exists(path)) return $"{path} is a folder, not a file name a dump can be written to";
        try
        {
            var free = new DriveInfo(Path.GetDirectoryName(Path.GetFullPath(path))!).AvailableFreeSpace;
            var needed = workingSetBytes + DumpOverheadBytes;
            if (free < needed)
                return $"not enough disk space for the dump: about {needed >> 20} MB needed (the process's working set), {free >> 20} MB free in {Path.GetDirectoryName(path)}";
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException)
        {
            // Free space is unknown (unusual file system): let the dump itself find out.
        }
        return null;
    }

    /// <summary>The runtime's error plus every cause that applies here.</summary>
    public static string Explain(string error, string path, string? runtimeDirectory)
    {
        var causes = new List<string>();
        if (CannotCreate(path) is { } create) causes.Add(create);
        if (runtimeDirectory is not null)
        {
            var createdump = Path.Combine(runtimeDirectory, OperatingSystem.IsWindows() ? "createdump.exe" : "createdump");
            if (!File.Exists(createdump)) causes.Add($"createdump is missing from {runtimeDirectory} (the runtime writes dumps with it; some trimmed or distro builds omit it)");
        }
        if (OperatingSystem.IsLinux()) causes.AddRange(PtraceRestrictions());
        var message = OneLine(error);
        return causes.Count == 0 ? message : $"{message} ({string.Join("; ", causes)})";
    }

    /// <summary>
    /// The runtime's error carries createdump's log ("[createdump] Could not create output file ...: No such file or
    /// directory (2)", "[createdump] ptrace(ATTACH, ...) FAILED ..."): the cause, kept; its timing line, dropped.
    /// </summary>
    public static string OneLine(string text) =>
        string.Join(' ', text.Split(['\r', '\n'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Where(l => !l.StartsWith("[createdump] Failure took", StringComparison.Ordinal))
            .Select(l => l.Replace("[createdump] ", "createdump: ", StringComparison.Ordinal)));

    private static string? CannotCreate(string path)
    {
        if (Directory.Exists(path)) return $"{path} is a folder";
        var probe = path + ".probe";
        try
        {
            using (new FileStream(probe, FileMode.CreateNew, FileAccess.Write)) { }
            File.Delete(probe);
            return null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return $"cannot create files in {Path.GetDirectoryName(path)}: {ex.Message}";
        }
    }

    /// <summary>
    /// createdump is started by the target process and attaches back to it with ptrace. The runtime allows that for
    /// Yama scope 1 (prctl PR_SET_PTRACER), but scope 2 needs CAP_SYS_PTRACE, scope 3 forbids ptrace, and container
    /// runtimes can drop the capability or filter the syscall.
    /// </summary>
    private static IEnumerable<string> PtraceRestrictions()
    {
        var scope = Read("/proc/sys/kernel/yama/ptrace_scope")?.Trim();
        if (scope == "2") yield return "kernel.yama.ptrace_scope=2 allows ptrace only with CAP_SYS_PTRACE: record as root, or `sysctl kernel.yama.ptrace_scope=1`";
        if (scope == "3") yield return "kernel.yama.ptrace_scope=3 disables ptrace until reboot: dumps are impossible on this machine";
        if (InContainer())
        {
            var status = Read("/proc/self/status") ?? "";
            var capEff = status.Split('\n').FirstOrDefault(l => l.StartsWith("CapEff:", StringComparison.Ordinal))?[7..].Trim();
            const ulong CapSysPtrace = 1UL << 19;
            if (capEff is not null && ulong.TryParse(capEff, System.Globalization.NumberStyles.HexNumber, null, out var caps) && (caps & CapSysPtrace) == 0)
                yield return "running in a container without CAP_SYS_PTRACE: start it with --cap-add=SYS_PTRACE";
            if (status.Contains("Seccomp:\t2", StringComparison.Ordinal))
                yield return "a seccomp filter is active (container default profiles block ptrace on older kernels): try --security-opt seccomp=unconfined";
        }
    }

    private static bool InContainer() =>
        File.Exists("/.dockerenv") || File.Exists("/run/.containerenv") || (Read("/proc/1/cgroup") ?? "").Contains("docker", StringComparison.Ordinal);

    private static string? Read(string path)
    {
        try { return File.Exists(path) ? File.ReadAllText(path) : null; }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    }
}
