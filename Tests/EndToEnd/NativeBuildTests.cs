using System.Text.RegularExpressions;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Analyzer.Golden;
using EtwSerializerProfiler.Tests.Robustness;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The native esp (Cli/NativeAot.targets, published by the test as a user publishes it) gives the managed esp's
/// answers: the golden recordings' outputs byte for byte (both formats, one raw pass and through TraceLog's .etlx,
/// which creates its types by name), the HTML page, speedscope files, diff, stats and a .NET Core 2.1 .netperf as the
/// in-process esp writes them; and the verbs it does not carry (record, stacktags) run as the managed esp its publish
/// puts beside it.
/// </summary>
[EndToEnd]
[AfterSetUp(SetUp.NativeEsp)]
public sealed partial class NativeBuildTests
{
    [Fact]
    public void The_golden_recordings_analyze_to_the_captured_outputs()
    {
        var failures = new List<string>();
        foreach (var (recording, format, throughEtlx) in GoldenAnalysisTests.Cases.Select(c => ((string)c[0], (string)c[1], (bool)c[2])))
        {
            var dir = Repo.NewTempDir("native-golden");
            try
            {
                var zip = Repo.CopyGoldenRecording(recording, dir);
                string[] args = ["analyze", zip, "--format", format, "--top", "15", "--tables", "all", "--no-cache", .. throughEtlx ? ["--etlx"] : Array.Empty<string>()];
                var run = NativeEsp.Run(dir, args);
                Assert.True(run.ExitCode == 0, $"{string.Join(' ', args)}: exit {run.ExitCode}: {run.StdErr}");
                var expected = File.ReadAllText(Repo.Golden($"{recording}.{(format == "text" ? "txt" : format)}")).ReplaceLineEndings("\n");
                if (GoldenAnalysisTests.AsReadRaw(GoldenAnalysisTests.Mask(run.StdOut.ReplaceLineEndings("\n"), dir), format, throughEtlx) != expected)
                    failures.Add($"{recording} ({format}{(throughEtlx ? ", --etlx" : "")})");
            }
            finally
            {
                FileCleanup.TryDeleteDirectory(dir);
            }
        }
        Assert.True(failures.Count == 0, "the native esp's output differs from the captured one for: " + string.Join(", ", failures));
    }

    [Fact]
    public void Reports_diff_stats_and_a_netperf_trace_equal_the_managed_esps()
    {
        var dir = Repo.NewTempDir("native-reports");
        try
        {
            var kernel = Repo.CopyGoldenRecording("kernel-session", dir);
            var eventPipe = Repo.CopyGoldenRecording("eventpipe-only", dir);
            var netperf = Path.Combine(dir, "trace.netperf");
            File.Copy(Directory.GetFiles(Path.Combine(Repo.Root, "Tests", "Fixtures", "NetPerf"), "*.netperf").Single(), netperf);
            string[][] calls =
            [
                ["analyze", kernel, "--no-cache", "--html", "{out}/page.html", "--speedscope", "{out}/speedscope"],
                ["analyze", netperf, "--no-cache", "--format", "json"],
                ["diff", eventPipe, kernel, "--format", "json"],
                ["stats", kernel],
            ];
            foreach (var call in calls)
            {
                var managed = Directory.CreateDirectory(Path.Combine(dir, "managed")).FullName;
                var native = Directory.CreateDirectory(Path.Combine(dir, "native")).FullName;
                var m = InProcessEsp.Run(TimeSpan.FromMinutes(3), call[0], [.. call[1..].Select(a => a.Replace("{out}", managed, StringComparison.Ordinal))]);
                var n = NativeEsp.Run(dir, [.. call.Select(a => a.Replace("{out}", native, StringComparison.Ordinal))]);
                var what = string.Join(' ', call);
                Assert.True(m.ExitCode == 0 && n.ExitCode == 0, $"{what}: managed exit {m.ExitCode}, native exit {n.ExitCode}: {n.StdErr}");
                Assert.Equal(Volatile(m.StdOut, managed), Volatile(n.StdOut, native));
                foreach (var file in Directory.EnumerateFiles(managed, "*", SearchOption.AllDirectories))
                {
                    var twin = Path.Combine(native, Path.GetRelativePath(managed, file));
                    Assert.True(File.Exists(twin), $"{what}: the native esp did not write {Path.GetRelativePath(managed, file)}");
                    Assert.True(Volatile(File.ReadAllText(file), managed) == Volatile(File.ReadAllText(twin), native), $"{what}: {Path.GetRelativePath(managed, file)} differs");
                }
                Directory.Delete(managed, recursive: true);
                Directory.Delete(native, recursive: true);
            }
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    [Fact]
    public void Record_and_stacktags_become_the_managed_esp_published_beside_it_and_without_it_refuse_in_one_line()
    {
        var dir = Repo.NewTempDir("native-handoff");
        try
        {
            var tags = Path.Combine(Repo.Root, "stacktags", "Serializers.stacktags");
            var check = NativeEsp.Run(dir, "stacktags", "check", tags);
            var inProcess = InProcessEsp.Run(TimeSpan.FromMinutes(1), "stacktags", "check", tags);
            Assert.True(check.ExitCode == inProcess.ExitCode && check.StdOut == inProcess.StdOut, $"native: exit {check.ExitCode} {check.StdOut}{check.StdErr}; managed: exit {inProcess.ExitCode} {inProcess.StdOut}");

            var folder = Path.Combine(dir, "trace");
            var record = NativeEsp.Run(dir, "record", "--kernel", "off", "--serializers", "System.Text.Json", "--n", "100", "--runs", "2", "--heap", "System.Text.Json", "--out", folder);
            Assert.True(record.ExitCode == 0, $"exit {record.ExitCode}: {record.StdErr}");
            var manifest = TraceManifest.Load(new EtwSerializerProfiler.Recorder.TraceFolder(folder).Manifest);
            // The benchmark that ran is the managed esp's, published beside the native one.
            Assert.Contains(Path.Combine(Path.GetDirectoryName(NativeEsp.Path)!, "managed", "SerializerBenchmark.dll"), manifest.CommandLine, StringComparison.Ordinal);
            var analyze = NativeEsp.Run(dir, "analyze", folder);
            Assert.True(analyze.ExitCode == 0, analyze.StdErr);
            Assert.Contains("System.Text.Json", analyze.StdOut, StringComparison.Ordinal);
            // ClrMD is not rooted in the native build: its heap report is the managed esp's, byte for byte.
            var heap = NativeEsp.Run(dir, "heap", folder, "--format", "json");
            var managedHeap = InProcessEsp.Run(TimeSpan.FromMinutes(2), "heap", folder, "--format", "json");
            Assert.True(heap.ExitCode == 0 && managedHeap.ExitCode == 0, $"native exit {heap.ExitCode}: {heap.StdErr}; managed exit {managedHeap.ExitCode}");
            Assert.Contains("System.Text.Json", heap.StdOut, StringComparison.Ordinal);
            Assert.Equal(managedHeap.StdOut, heap.StdOut);

            // The native executable alone (copied without managed/): those verbs say what is missing, in one line.
            var alone = Path.Combine(dir, "alone");
            Directory.CreateDirectory(alone);
            File.Copy(NativeEsp.Path, Path.Combine(alone, "esp"));
            foreach (var call in new[] { new[] { "record", "--n", "100" }, ["stacktags", "check"] })
            {
                var run = ProcessRunner.Run(Path.Combine(alone, "esp"), call, TimeSpan.FromMinutes(1), dir);
                Assert.Equal(ExitCodes.Usage, run.ExitCode);
                var line = Assert.Single(run.StdErr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
                Assert.StartsWith($"esp {string.Join(' ', call.TakeWhile(a => !a.StartsWith('-')))}: the native esp runs", line, StringComparison.Ordinal);
                Assert.Contains("managed", line, StringComparison.Ordinal);
            }
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>
    /// What differs between two runs of the same analysis: the golden tests' masks (temp folders, the time it took),
    /// and here also every seconds field and the tool's own stack tags path.
    /// </summary>
    private static string Volatile(string text, string outDir) =>
        StackTagsPath().Replace(Seconds().Replace(GoldenAnalysisTests.Mask(text.ReplaceLineEndings("\n"), outDir), "${name}0"), "${name}<tags>");

    [GeneratedRegex(@"(?<name>""[A-Za-z]*[sS]econds"": )[0-9.Ee+-]+")]
    private static partial Regex Seconds();

    [GeneratedRegex(@"(?<name>""(stackTagsFile|path)"": "")[^""]*Serializers\.stacktags")]
    private static partial Regex StackTagsPath();
}

/// <summary>
/// Damaged inputs through the native esp: a quarter of the corpus (DamagedInputCorpusTests' generator and seed),
/// each call as a process, gives the exit code the in-process esp gives, in one line without a stack. This is where
/// the native build could differ: telling a damaged trace from a bug in esp reads which assembly threw
/// (Analyzer/Input/ReaderFault), from stack trace data the native build keeps in its own form.
/// </summary>
[EndToEnd]
[Collection(DamagedInputCollection.Name)]
public sealed class NativeBuildDamagedInputTests(DamagedInputSource source)
{
    [Fact]
    public void Damaged_inputs_give_the_managed_esps_exit_codes_in_one_line()
    {
        var failures = new List<string>();
        var compared = 0;
        var index = 0;
        foreach (var input in new DamagedInputs(source, DamagedInputCorpusTests.Seed, 1).All())
        {
            if (index++ % 8 == 0)
                foreach (var call in input.Calls)
                {
                    var native = NativeEsp.Run(Path.GetTempPath(), call);
                    // The verbs the native esp does not carry run as the managed esp beside it (Cli/Commands/ManagedEsp).
                    var managed = InProcessEsp.Run(TimeSpan.FromMinutes(1), call[0], call[1..]).ExitCode;
                    compared++;
                    var where = $"[{input.Kind}: {input.Name}] esp {string.Join(' ', call)}";
                    if (native.ExitCode != managed)
                        failures.Add($"{where}: native exit {native.ExitCode}, managed {managed}: {native.StdErr.Trim()}");
                    else if (native.StdErr.Contains("   at ", StringComparison.Ordinal) || native.StdErr.Contains("Unhandled exception", StringComparison.Ordinal))
                        failures.Add($"{where}: a stack trace on stderr");
                }
            input.Cleanup?.Invoke();
        }
        Assert.True(failures.Count == 0, $"{failures.Count} of {compared} calls:\n{string.Join("\n", failures.Take(20))}");
        Assert.True(compared >= 30, $"only {compared} calls compared");
    }
}
