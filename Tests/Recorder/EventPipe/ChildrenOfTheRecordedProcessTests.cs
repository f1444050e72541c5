using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.EventBytes;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.EventPipe;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Tests.Support;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Tests.Recorder.EventPipe;

/// <summary>
/// .NET processes that the recorded program starts (Tests/Workloads/ParentApp: copies of itself and `dotnet
/// --version`, as BenchmarkDotNet does) inherit the recorder's diagnostic port. They must run on at once, untraced;
/// before the port proxy each waited there, suspended, for ever, and so did the recording.
/// </summary>
[EndToEnd]
public sealed class ChildrenOfTheRecordedProcessTests : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("grandchildren");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    private sealed record ChildRun(string[] Arguments, int ProcessId, int ExitCode, string Output, bool Hung);

    private sealed record ParentTruth(int ProcessId, ChildRun[] Children);

    [Fact]
    public async Task The_programs_own_dotnet_children_run_untraced_and_only_the_program_is_recorded_from_its_start()
    {
        var truthPath = Path.Combine(_dir, "truth.json");
        // Bounded: a child left waiting at the port would hold the parent (60 s per child) and the recording.
        using var cancel = new CancellationTokenSource(TimeSpan.FromMinutes(3));
        var (exit, folder, output) = await Recording.RecordAsync(Path.Combine(_dir, "t"),
            ["--kernel", "off", "--", "dotnet", Repo.WorkloadDll("ParentApp"), "--children", "2", "--dotnet-version", "--truth", truthPath], cancel.Token);

        var truth = JsonSerializer.Deserialize<ParentTruth>(File.ReadAllText(truthPath))!;
        Assert.True(exit == ExitCodes.Ok, $"exit {exit}: {output} {File.ReadAllText(truthPath)}");
        Assert.Equal(3, truth.Children.Length);
        Assert.All(truth.Children, c => Assert.False(c.Hung, $"{string.Join(' ', c.Arguments)} waited at the port"));
        Assert.All(truth.Children.Take(2), c => Assert.Equal((7, $"child {c.ProcessId} ran"), (c.ExitCode, c.Output.Trim())));
        var sdk = truth.Children[2];
        Assert.Equal(0, sdk.ExitCode);
        Assert.Matches(@"^\d+\.\d+\.\d+", sdk.Output.Trim());

        // The trace is the direct child's, by the manifest and by the runtime's own header in the trace.
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal(RecordingStatus.Complete, manifest.Status);
        Assert.Equal(truth.ProcessId, manifest.ChildProcessId);
        Assert.Equal(truth.ProcessId, NetTraceBlocks.Scan(folder.Trace).ProcessId);
        Assert.DoesNotContain(truth.ProcessId, truth.Children.Select(c => c.ProcessId));
        // ...from its first instruction: Main's JIT is in it.
        Assert.True(MainJitted(folder.Trace), "no MethodLoadVerbose for ParentApp's Main: the session started after the runtime resumed");
    }

    [Fact]
    public async Task A_wrapper_that_starts_the_dotnet_program_is_a_clear_error_and_the_program_runs_on()
    {
        // `sh -c "A; B"` forks A (no exec): the .NET process is the recorded command's child, not the command itself.
        var marker = Path.Combine(_dir, "ran.txt");
        var command = new ChildCommand("/bin/sh", ["-c", $"dotnet '{Repo.WorkloadDll("ParentApp")}' child > '{marker}'; true"], new Dictionary<string, string>());
        var recorder = new EventPipeRecorder(TimeSpan.FromSeconds(60));
        var started = System.Diagnostics.Stopwatch.StartNew();
        var ex = await Assert.ThrowsAsync<UsageException>(() =>
            recorder.RecordAsync(command, ProfileCatalog.Get("default"), Path.Combine(_dir, "w.nettrace"), null, CancellationToken.None));

        Assert.Contains("exited (code 0) before connecting", ex.Message, StringComparison.Ordinal);
        Assert.Contains("which ran untraced", ex.Message, StringComparison.Ordinal);
        var ran = File.ReadAllText(marker).Trim();
        Assert.Matches(@"^child \d+ ran$", ran);
        Assert.Contains(ran.Split(' ')[1], ex.Message, StringComparison.Ordinal); // the PID it names is the one that ran
        Assert.True(started.Elapsed < TimeSpan.FromSeconds(50), $"took {started.Elapsed.TotalSeconds:F0} s: the program waited at the port");
        Assert.Empty(Directory.EnumerateFiles(Path.GetTempPath(), $"esp-{Environment.ProcessId}-*.sock"));
    }

    /// <summary>Whether Main was JIT-compiled inside the session (MethodLoadVerbose, not the rundown's MethodDCEnd).</summary>
    private static bool MainJitted(string trace)
    {
        var jitted = false;
        using var source = new EventPipeEventSource(trace);
        source.Clr.MethodLoadVerbose += e => jitted |= e.MethodNamespace == "Program" && e.MethodName.StartsWith("<Main>", StringComparison.Ordinal);
        source.Process();
        return jitted;
    }
}
