using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.EventBytes;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Robustness;

/// <summary>
/// The real recording the damaged inputs are made from: the real benchmark, default profile, two serializers, two
/// runs of a small N, and one heap snapshot, so one recording (a few seconds) gives a trace, its companions and a dump.
/// </summary>
public sealed class DamagedInputSource : IDisposable
{
    public const string Serializers = "Reflection,System.Text.Json";

    public TraceFolder Folder { get; }
    public string Dump { get; }
    public NetTraceBlocks Blocks { get; }
    /// <summary>What esp analyze says about the undamaged trace: the control every damaged input is compared with.</summary>
    public VerbOutcome Control { get; }
    private readonly string _dir;

    public DamagedInputSource()
    {
        _dir = Repo.NewTempDir("damaged");
        var (exit, folder, output) = Recording.RecordAsync(Path.Combine(_dir, "source"),
            ["--n", "1000", "--runs", "2", "--serializers", Serializers, "--heap", "Reflection", "--quiet"]).GetAwaiter().GetResult();
        Assert.True(exit == 0, output);
        Folder = folder;
        Dump = Directory.EnumerateFiles(folder.Path, "heap-*.dmp").Single();
        Blocks = NetTraceBlocks.Scan(folder.Trace);
        Control = InProcessEsp.Run(TimeSpan.FromMinutes(2), "analyze", folder.Path, "--format", "json");
        Assert.True(Control.ExitCode == 0, Control.StdErr);
    }

    /// <summary>A fresh folder for one input, inside this fixture's folder (removed with it).</summary>
    public string NewWorkDir(string name)
    {
        var safe = string.Concat(name.Select(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '.' ? c : '_'));
        var dir = Path.Combine(_dir, "work", safe);
        Directory.CreateDirectory(dir);
        return dir;
    }

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }
}

[CollectionDefinition(Name)]
[AfterSetUp(SetUp.NativeEsp)] // NativeBuildDamagedInputTests
public sealed class DamagedInputCollection : ICollectionFixture<DamagedInputSource>
{
    public const string Name = "damaged inputs";
}
