using System.IO.Compression;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>Paths the tests need: the repository root (for committed files) and the tool's output folder.</summary>
public static class Repo
{
    public static string Root { get; } = FindRoot();

    public static string BinDir => AppContext.BaseDirectory;

    public static string BenchmarkDll => Path.Combine(BinDir, "SerializerBenchmark.dll");

    /// <summary>A workload under Tests/Workloads (a program of its own, built beside the tests): its dll.</summary>
    public static string WorkloadDll(string name) =>
        Path.Combine(BinDir.Replace(Path.Combine("Tests", "bin"), Path.Combine("Tests", "Workloads", name, "bin"), StringComparison.Ordinal), name + ".dll");

    /// <summary>A committed golden file (Tests/Fixtures/Golden): a recording's zip, or its expected output.</summary>
    public static string Golden(string fileName) => Path.Combine(Root, "Tests", "Fixtures", "Golden", fileName);

    /// <summary>A copy of a golden recording's zip in <paramref name="dir"/> (the analyzer may write its cache beside it).</summary>
    public static string CopyGoldenRecording(string recording, string dir)
    {
        var zip = Path.Combine(dir, recording + ".zip");
        File.Copy(Golden(recording + ".zip"), zip);
        return zip;
    }

    /// <summary>A golden recording's trace.nettrace, unzipped into <paramref name="dir"/>: its path.</summary>
    public static string GoldenTrace(string recording, string dir)
    {
        var trace = Path.Combine(dir, "trace.nettrace");
        using (var zip = ZipFile.OpenRead(Golden(recording + ".zip"))) zip.GetEntry("trace.nettrace")!.ExtractToFile(trace);
        return trace;
    }

    /// <summary>
    /// A new folder under the temp folder, deleted when the test run ends if its test left it (a CI run left 12: report
    /// and browser tests, the set-up script's fakes).
    /// </summary>
    public static string NewTempDir(string prefix)
    {
        var dir = Path.Combine(Path.GetTempPath(), $"esp-test-{prefix}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(dir);
        lock (Made)
        {
            if (Made.Count == 0) AppDomain.CurrentDomain.ProcessExit += (_, _) => DeleteMade();
            Made.Add(dir);
        }
        return dir;
    }

    private static readonly List<string> Made = [];

    private static void DeleteMade()
    {
        lock (Made)
            foreach (var dir in Made) Common.FileCleanup.TryDeleteDirectory(dir);
    }

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
            if (File.Exists(Path.Combine(dir.FullName, "EtwSerializerProfiler.sln"))) return dir.FullName;
        throw new InvalidOperationException("repository root (EtwSerializerProfiler.sln) not found above " + AppContext.BaseDirectory);
    }
}
