using System.IO.Compression;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Robustness;

/// <summary>
/// The corpus runs the verbs in process for speed; here a few of its inputs go through the real esp process too, to
/// show that exit code and error line are what a user gets (and no stack trace, no crash code such as 134).
/// </summary>
[EndToEnd]
[Collection(DamagedInputCollection.Name)]
public sealed class CliAgreesWithInProcessTests(DamagedInputSource source)
{
    [Fact]
    public void The_esp_process_exits_and_complains_exactly_as_the_corpus_saw_in_process()
    {
        var dir = source.NewWorkDir("cli-agrees");
        var bytes = File.ReadAllBytes(source.Folder.Trace);
        var cut = Path.Combine(dir, "cut.nettrace");
        File.WriteAllBytes(cut, bytes[..200]); // crashed both verbs before (exit 134)
        var escaping = Path.Combine(dir, "escaping.zip");
        using (var zip = ZipFile.Open(escaping, ZipArchiveMode.Create)) zip.CreateEntryFromFile(source.Folder.Trace, "../up.nettrace");
        var twoTraces = Path.Combine(dir, "two.zip");
        using (var zip = ZipFile.Open(twoTraces, ZipArchiveMode.Create))
        {
            zip.CreateEntryFromFile(source.Folder.Trace, "a/trace.nettrace");
            zip.CreateEntryFromFile(source.Folder.Trace, "b/trace.nettrace");
        }
        var tags = Path.Combine(dir, "bad.stacktags");
        File.WriteAllText(tags, "<Tag Name=\"\"><Tag Name=\"A\" Priority=\"high\"/></Tag>");

        // Nothing readable but the cut: stats and analyze cannot read it (3: no run, no thread's activity before the
        // damage); diff compares the baseline's runs with none (its own rules decide between 0, 1 and 3).
        (int? Exit, string[] Call)[] calls =
        [
            (Common.ExitCodes.BadInput, ["analyze", cut]), (Common.ExitCodes.BadInput, ["stats", cut]), (null, ["diff", source.Folder.Path, cut]),
            (Common.ExitCodes.BadInput, ["analyze", escaping]), (Common.ExitCodes.BadInput, ["stats", twoTraces]),
            (Common.ExitCodes.BadInput, ["analyze", source.Folder.Path, "--stacktags", tags]),
        ];
        foreach (var (exit, call) in calls)
        {
            var inProcess = InProcessEsp.Run(TimeSpan.FromMinutes(2), call[0], call[1..]);
            var process = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), call);
            Assert.True(process.ExitCode == inProcess.ExitCode, $"esp {string.Join(' ', call)}: process {process.ExitCode} ({process.StdErr.Trim()}), in process {inProcess.ExitCode}");
            Assert.Equal(inProcess.ErrorLines, process.StdErr.Split('\n').Where(l => l.StartsWith($"esp {call[0]}: ", StringComparison.Ordinal)));
            Assert.DoesNotContain("   at ", process.StdErr, StringComparison.Ordinal);
            if (exit is { } expected) Assert.Equal(expected, process.ExitCode);
            else Assert.True(process.ExitCode is Common.ExitCodes.Ok or Common.ExitCodes.Failed or Common.ExitCodes.BadInput, process.StdErr);
        }
        Directory.Delete(dir, recursive: true);
    }
}
